"""Score-level agreement (ICC(2,1), Bland–Altman, Kendall's τ-b) and the per-ability Holm
flags, pinned on hand-computed examples and on figures from packages run outside the project.

External figures: pingouin 0.7.0 (``intraclass_corr``, row ICC(A,1) = Shrout & Fleiss
ICC(2,1); it prints the interval to two decimals) and statsmodels 0.15.0
(``multipletests(method="holm")``), with pandas 3.1.1, in a throwaway venv — not dependencies
of the project.
"""

import numpy as np
import pytest
from scipy import stats

from validation.statistics.holm import agreement_below_holm, holm_adjust
from validation.statistics.scores import bland_altman, icc_2_1, kendall_tau_b

GOLD_12 = [62.5, 71.0, 48.2, 90.1, 55.0, 66.6, 80.3, 39.9, 73.4, 58.8, 84.0, 45.5]
JUDGE_12 = [60.1, 75.2, 50.0, 86.7, 61.3, 64.0, 83.9, 35.2, 70.8, 63.5, 81.1, 52.4]
# A judge scoring about eight points low: consistent, but poor absolute agreement.
GOLD_8 = [62.5, 71.0, 48.2, 90.1, 55.0, 66.6, 80.3, 39.9]
LOW_8 = [50.0, 66.1, 45.3, 79.9, 40.2, 61.0, 77.7, 25.0]


def test_icc_by_hand():
    # Subjects (1,2) (2,2) (3,4) (4,5): grand mean 23/8; MSR = 11.375/3, MSC = 1.125,
    # MSE = 0.375/3; ICC = (MSR − MSE) / (MSR + MSE + 2 (MSC − MSE) / 4) = (11/3) / (53/12).
    icc = icc_2_1(scores=[[1, 2], [2, 2], [3, 4], [4, 5]])
    assert icc.value == pytest.approx(44 / 53)
    assert icc.n == 4 and icc.low < icc.value < icc.high


@pytest.mark.parametrize(
    ("gold", "judge", "value", "interval"),
    [
        # pingouin 0.7.0: ICC(A,1) and its CI95 (rounded to two decimals by pingouin)
        (GOLD_12, JUDGE_12, 0.9645876108333807, (0.88, 0.99)),
        (GOLD_8, LOW_8, 0.8631039791147908, (-0.03, 0.98)),
        ([1, 2, 3, 4], [2, 2, 4, 5], 0.8301886792452831, (-0.08, 0.99)),
    ],
)
def test_icc_matches_pingouin(gold, judge, value, interval):
    icc = icc_2_1(scores=np.column_stack([gold, judge]))
    assert icc.value == pytest.approx(value, abs=1e-12)
    assert (round(icc.low, 2), round(icc.high, 2)) == interval


def test_icc_undefined_cases_say_why():
    assert icc_2_1(scores=[[1.0, 2.0]]).reason == "1 subject(s), 2 rater(s)"
    assert icc_2_1(scores=[[3.0, 3.0], [3.0, 3.0]]).reason == "no variance between subjects"
    same = icc_2_1(scores=[[1.0, 1.0], [2.0, 2.0], [5.0, 5.0]])
    assert same.value == pytest.approx(1.0) and same.low is None and same.reason


def test_bland_altman_by_hand():
    # judge − gold: 1, 0, 1, 1 → mean 0.75, SD √(0.75 / 3) = 0.5, limits 0.75 ± 1.96 × 0.5.
    ba = bland_altman(first=[1, 2, 3, 4], second=[2, 2, 4, 5])
    assert (ba.n, ba.mean_difference, ba.sd) == (4, 0.75, 0.5)
    assert ba.lower_limit == pytest.approx(0.75 - 1.959964 * 0.5, abs=1e-6)
    assert ba.upper_limit == pytest.approx(0.75 + 1.959964 * 0.5, abs=1e-6)
    assert bland_altman(first=[1], second=[2]).reason == "1 subject(s): limits need two"


def test_bland_altman_matches_numpy_outside_the_project():
    # numpy 2 in the pingouin venv: mean and SD (ddof=1) of LOW_8 − GOLD_8.
    ba = bland_altman(first=GOLD_8, second=LOW_8)
    assert ba.mean_difference == pytest.approx(-8.549999999999997)
    assert ba.sd == pytest.approx(5.169415551380748)


def test_kendall_tau_b_equals_scipy_with_ties_and_vectorised():
    rng = np.random.default_rng(3)
    first = rng.integers(0, 4, size=(50, 6)).astype(float)
    second = rng.integers(0, 4, size=(50, 6)).astype(float)
    taus = kendall_tau_b(first, second)
    for row, tau in zip(range(50), taus, strict=True):
        expected = stats.kendalltau(first[row], second[row]).statistic
        assert (np.isnan(tau) and np.isnan(expected)) or tau == pytest.approx(expected)
    assert np.isnan(kendall_tau_b(np.ones(3), np.arange(3.0)))


def test_holm_matches_statsmodels():
    # statsmodels 0.15.0 multipletests([...], method="holm")[1]
    adjusted = holm_adjust([0.001, 0.04, 0.03, 0.2, 0.012])
    assert adjusted.tolist() == pytest.approx([0.005, 0.09, 0.09, 0.2, 0.048])


def test_abilities_below_the_threshold_by_hand():
    a = ([1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1], [0] * 4 + [1] * 4 + [2] * 4)
    b = ([0, 0, 1, 0, 0, 0, 1, 0], [0, 0, 1, 1, 2, 2, 3, 3])
    c = ([0, 0, 0], [7, 7, 7])  # one case: no test, left out of the family
    tests = {
        t.group: t for t in agreement_below_holm(groups={"a": a, "b": b, "c": c}, threshold=0.75)
    }
    # a: 10/12; per-case residuals −1/3, 2/3, −1/3 → se = √(1.5 × 2/3) / 12 = 1/12; z = 1.
    assert tests["a"].value == pytest.approx(10 / 12)
    assert tests["a"].p_value == pytest.approx(stats.norm.cdf(1.0))
    # b: 2/8; residuals ±1/2 over four cases → se = √(4/3) / 8; z = −0.5 / se.
    p_b = stats.norm.cdf(-0.5 / (np.sqrt(4 / 3) / 8))
    assert tests["b"].p_value == pytest.approx(p_b)
    assert tests["b"].p_holm == pytest.approx(2 * p_b) and tests["b"].flagged
    assert tests["a"].p_holm == pytest.approx(stats.norm.cdf(1.0)) and not tests["a"].flagged
    assert (tests["c"].p_value, tests["c"].flagged, tests["c"].value) == (None, False, 0.0)
