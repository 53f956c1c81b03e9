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

from validation.statistics.holm import _p_below, agreement_below_holm, holm_adjust
from validation.statistics.scores import (
    bland_altman,
    icc_2_1,
    kendall_tau_b,
    kendall_tau_test,
)

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


def _kendall_cases():
    """Pairs of score lists covering scipy's branches: exact (no ties, up to 33 values, or at
    most one discordant pair beyond), asymptotic with and without ties, and the degenerate."""
    rng = np.random.default_rng(16)
    for size in (2, 3, 4, 5, 8, 13, 30, 33, 34, 40, 60):
        for _ in range(6):
            yield rng.permutation(size) + 0.5, rng.normal(size=size) * 10
            yield rng.integers(0, 4, size).astype(float), rng.integers(0, 5, size) * 1.5
        ranks = np.arange(size, dtype=float)
        yield ranks, ranks * 2  # every pair concordant (c = 0 on the other side)
        yield ranks, -ranks
        swapped = ranks.copy()
        swapped[[0, 1]] = swapped[[1, 0]]
        yield ranks, swapped  # one discordant pair: exact even beyond 33 values
        yield np.ones(size), ranks  # one side all tied: NaN


@pytest.mark.parametrize(("first", "second"), list(_kendall_cases()))
def test_kendall_tau_test_is_scipys_to_the_last_digit(first, second):
    ours = kendall_tau_test(first, second)
    theirs = stats.kendalltau(first, second)
    for mine, expected in ((ours.statistic, theirs.statistic), (ours.p_value, theirs.pvalue)):
        assert (np.isnan(mine) and np.isnan(expected)) or mine == float(expected)


def test_icc_interval_is_scipys_f_distribution_to_the_last_digit():
    # The interval as it was computed with scipy.stats.f.ppf, on random raters.
    rng = np.random.default_rng(7)
    for n in (3, 5, 12, 40, 300):
        truth = rng.normal(50, 15, n)
        scores = np.column_stack([truth + rng.normal(0, 5, n), truth + rng.normal(3, 8, n)])
        icc = icc_2_1(scores=scores)
        assert (icc.low, icc.high) == _icc_interval_with_scipy_stats(scores)


def _icc_interval_with_scipy_stats(x: np.ndarray) -> tuple[float, float]:
    n, k = x.shape
    grand = x.mean()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_error = ((x - grand) ** 2).sum() - ss_rows - ss_cols
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = ss_error / ((n - 1) * (k - 1))
    icc = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    a = k * icc / (n * (1 - icc))
    b = 1 + k * icc * (n - 1) / (n * (1 - icc))
    v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
    f_low, f_high = stats.f.ppf(0.975, n - 1, v), stats.f.ppf(0.975, v, n - 1)
    spread = k * msc + (k * n - k - n) * mse
    return (
        float(n * (msr - f_low * mse) / (f_low * spread + n * msr)),
        float(n * (f_high * msr - mse) / (spread + n * f_high * msr)),
    )


def test_the_one_sided_p_value_is_scipy_stats_normal_to_the_last_digit():
    # _p_below uses scipy.special.ndtr, not scipy.stats: the same function underneath.
    agree = np.random.default_rng(5).random(400) < 0.8
    clusters = np.repeat(np.arange(40), 10)
    value, p = _p_below(agree, clusters, 0.75)
    sums = np.bincount(clusters, weights=agree.astype(float))
    residual = sums - value * 10
    se = np.sqrt(40 / 39 * (residual**2).sum()) / 400
    assert p == float(stats.norm.cdf((value - 0.75) / se))


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
