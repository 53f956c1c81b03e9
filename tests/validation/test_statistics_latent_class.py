"""The latent-class (Dawid–Skene) estimate: one EM step by hand, recovery of known
sensitivities on simulated data, and the fixed point of an independent implementation.

Codes here: 0 = met (the positive class, as ``hit`` is code 0 of the scheme hit/miss),
1 = not met, −1 = unrated.
"""

import math

import numpy as np
import pytest

from tests.builders.latent_class import JUDGE, ROWS, XCHECK_AS_RATER, XCHECK_HELD_OUT
from validation.statistics import BootstrapSettings, ratings_build
from validation.statistics.coding import MISSING
from validation.statistics.latent_class import (
    AS_RATER,
    HELD_OUT,
    MIN_EXPECTED,
    REFIT_TOLERANCE,
    _em,
    _indicators,
    _vote_share,
    latent_class_fit,
)
from validation.statistics.latent_section import latent_class_summary

MET, NOT_MET = 0, 1


def from_text(rows: list[str]) -> np.ndarray:
    """'1' said met, '0' said not met, '.' unrated → codes."""
    table = {"1": MET, "0": NOT_MET, ".": MISSING}
    return np.array([[table[c] for c in row] for row in rows])


# --- one EM step by hand ---------------------------------------------------------------------
#
# Items (A, B, C) and the judge (held out):
#   i1 1 1 1 | 1     vote share 1
#   i2 1 1 0 | 0     2/3
#   i3 0 1 0 | 1     1/3
#   i4 0 0 0 | 0     0
# M-step on the vote shares T0 = (1, 2/3, 1/3, 0): prevalence 2/4 = 1/2; ΣT0 = Σ(1 − T0) = 2;
#   A: se = (1 + 2/3)/2 = 5/6, sp = ((1 − 1/3) + 1)/2 = 5/6
#   B: se = (1 + 2/3 + 1/3)/2 = 1, sp = 1/2 (only i4 is "not met", weight 1 of 2)
#   C: se = 1/2, sp = (1/3 + 2/3 + 1)/2 = 1
# E-step, P(labels, met) = a and P(labels, not met) = b:
#   i1: a = ½·5/6·1·½ = 5/24, b = 0 (C said met, sp_C = 1)        → T1 = 1
#   i2: a = ½·5/6·1·½ = 5/24, b = ½·1/6·½·1 = 1/24                 → T1 = 5/6
#   i3: a = ½·1/6·1·½ = 1/24, b = ½·5/6·½·1 = 5/24                 → T1 = 1/6
#   i4: a = 0 (B said not met, se_B = 1), b = 5/24                  → T1 = 0
# The figures reported are the M-step on T1 (ΣT1 = 2, Σ(1 − T1) = 2):
#   A: se = (1 + 5/6)/2 = 11/12, sp = (5/6 + 1)/2 = 11/12;  B: 1, 1/2;  C: 1/2, 1
#   judge (1, 0, 1, 0): se = (1 + 1/6)/2 = 7/12, sp = (1/6 + 1)/2 = 7/12; prevalence 1/2
# and their log-likelihood: P(i1) = ½·11/12·1·½ = 11/48, P(i2) = ½(11/24 + 1/24) = 1/4,
#   P(i3) = ½(1/24 + 11/24) = 1/4, P(i4) = ½·11/12·½ = 11/48 → 2 ln(11/48) + 2 ln(1/4).
HAND = from_text(["111", "110", "010", "000"])
HAND_JUDGE = from_text(["1", "0", "1", "0"])[:, 0]


def test_one_em_step_by_hand():
    fit = latent_class_fit(
        codes=HAND,
        positive=MET,
        raters=["A", "B", "C"],
        clusters=np.arange(4),
        judge=HAND_JUDGE,
        max_iterations=1,
    )
    assert fit.iterations == 1 and not fit.converged
    assert fit.posterior == pytest.approx([1, 5 / 6, 1 / 6, 0], abs=1e-9)
    expected = {"A": (11 / 12, 11 / 12), "B": (1, 1 / 2), "C": (1 / 2, 1)}
    for name, (se, sp) in expected.items():
        assert fit.raters[name].sensitivity.value == pytest.approx(se, abs=1e-9)
        assert fit.raters[name].specificity.value == pytest.approx(sp, abs=1e-9)
    assert fit.judge.sensitivity.value == pytest.approx(7 / 12, abs=1e-9)
    assert fit.judge.specificity.value == pytest.approx(7 / 12, abs=1e-9)
    assert fit.prevalence.value == pytest.approx(1 / 2)
    assert fit.log_likelihood == pytest.approx(2 * math.log(11 / 48) + 2 * math.log(1 / 4))
    # The expected counts the ratios are over: ΣT1 = 2 latent positives among A's items.
    assert fit.raters["A"].sensitivity.expected_n == pytest.approx(2)
    assert fit.judge_mode == HELD_OUT and "judge held out" in fit.method


# --- an independent implementation ---------------------------------------------------------
#
# The data and the figures: tests/builders/latent_class.py (the agreement command's tests use
# them too).


@pytest.mark.parametrize(
    ("judge_as_rater", "expected"), [(False, XCHECK_HELD_OUT), (True, XCHECK_AS_RATER)]
)
def test_fixed_point_equals_an_independent_implementation(judge_as_rater, expected):
    fit = latent_class_fit(
        codes=from_text(ROWS),
        positive=MET,
        raters=["r0", "r1", "r2", "r3"],
        clusters=np.arange(40) // 4,
        judge=from_text(list(JUDGE))[:, 0],
        judge_as_rater=judge_as_rater,
    )
    assert fit.converged
    assert fit.judge_mode == (AS_RATER if judge_as_rater else HELD_OUT)
    assert fit.prevalence.value == pytest.approx(expected["prevalence"], abs=1e-7)
    assert fit.log_likelihood == pytest.approx(expected["log_likelihood"], abs=1e-7)
    for accuracy, (se, sp) in zip(fit.raters.values(), expected["raters"], strict=True):
        assert accuracy.sensitivity.value == pytest.approx(se, abs=1e-7)
        assert accuracy.specificity.value == pytest.approx(sp, abs=1e-7)
    assert fit.judge.sensitivity.value == pytest.approx(expected["judge"][0], abs=1e-7)
    assert fit.judge.specificity.value == pytest.approx(expected["judge"][1], abs=1e-7)
    assert fit.posterior[:6] == pytest.approx(expected["posterior[:6]"], abs=1e-7)


# --- recovery on simulated data ------------------------------------------------------------

TRUE_SE = np.array([0.9, 0.8, 0.7, 0.85, 0.95])
TRUE_SP = np.array([0.85, 0.9, 0.8, 0.75, 0.95])
JUDGE_SE, JUDGE_SP, PREVALENCE = 0.8, 0.7, 0.3


def simulated(seed: int = 42, n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < PREVALENCE
    said = np.where(truth[:, None], rng.random((n, 5)) < TRUE_SE, rng.random((n, 5)) >= TRUE_SP)
    judge = np.where(truth, rng.random(n) < JUDGE_SE, rng.random(n) >= JUDGE_SP)
    return np.where(said, MET, NOT_MET), np.where(judge, MET, NOT_MET), truth


def test_recovers_known_sensitivities_and_specificities():
    codes, judge, truth = simulated()
    fit = latent_class_fit(
        codes=codes,
        positive=MET,
        raters=list("ABCDE"),
        clusters=np.arange(400) // 4,  # 100 cases of four criteria
        judge=judge,
        bootstrap=BootstrapSettings(resamples=200),
    )
    # 400 items at prevalence 0.3 hold ~120 positives: a sensitivity's standard error is
    # about √(0.8·0.2/120) ≈ 0.037, so 0.08 is over two standard errors.
    tolerance = 0.08
    estimates = [(a.sensitivity, a.specificity) for a in fit.raters.values()]
    for (se, sp), true_se, true_sp in zip(estimates, TRUE_SE, TRUE_SP, strict=True):
        assert se.value == pytest.approx(true_se, abs=tolerance)
        assert sp.value == pytest.approx(true_sp, abs=tolerance)
    assert fit.judge.sensitivity.value == pytest.approx(JUDGE_SE, abs=tolerance)
    assert fit.judge.specificity.value == pytest.approx(JUDGE_SP, abs=tolerance)
    assert fit.prevalence.value == pytest.approx(truth.mean(), abs=0.03)
    # The posterior classifies nearly every item as its (simulated) truth.
    assert ((fit.posterior > 0.5) == truth).mean() > 0.95
    # Intervals over cases, each named, each around its estimate; most cover the truth.
    intervals = [e.interval for pair in estimates for e in pair]
    assert all(i.method and i.low < i.high for i in intervals)
    truths = [t for pair in zip(TRUE_SE, TRUE_SP, strict=True) for t in pair]
    covered = sum(i.low <= t <= i.high for i, t in zip(intervals, truths, strict=True))
    assert covered >= 8
    assert fit.unconverged_refits == 0


def test_bootstrap_resamples_cases_not_items():
    codes, judge, _ = simulated(n=120)
    by_case = latent_class_fit(
        codes=codes,
        positive=MET,
        raters=list("ABCDE"),
        clusters=np.zeros(120, dtype=int),  # one case: nothing to resample
        judge=judge,
        bootstrap=BootstrapSettings(resamples=100),
    )
    interval = by_case.raters["A"].sensitivity.interval
    assert interval.low is None and "1 cluster" in interval.reason


# --- label switching and degenerate inputs ---------------------------------------------------


def test_label_switching_guard_relabels_a_worse_than_chance_solution():
    codes, _, _ = simulated(n=200)
    pos, neg = _indicators(codes, MET)
    weights = np.ones((1, codes.shape[0]))
    share = _vote_share(pos, neg)[None, :]
    settings = {"pos": pos, "neg": neg, "weights": weights, "tolerance": 1e-10}
    from_votes = _em(start=share, max_iterations=5000, **settings)
    # Started from the complement, EM climbs to the mirrored solution (every rater worse
    # than chance); the guard turns it back.
    from_complement = _em(start=1 - share, max_iterations=5000, **settings)
    assert from_complement.posterior == pytest.approx(from_votes.posterior, abs=1e-6)


def test_nobody_says_met_gives_no_sensitivity_and_an_honest_specificity():
    codes = np.full((12, 3), NOT_MET)
    fit = latent_class_fit(
        codes=codes,
        positive=MET,
        raters=["A", "B", "C"],
        clusters=np.arange(12) // 3,
        bootstrap=BootstrapSettings(resamples=100),
    )
    assert fit.prevalence.value == pytest.approx(0, abs=1e-9)
    for accuracy in fit.raters.values():
        assert accuracy.sensitivity.value is None
        assert f"fewer than {MIN_EXPECTED:g}" in accuracy.sensitivity.reason
        assert accuracy.specificity.value == pytest.approx(1)
        # 12 of 12 over four cases: never [1, 1] (the exact bound is 0.025^(1/12) = 0.7354).
        interval = accuracy.specificity.interval
        assert interval.high == 1 and interval.low < 0.75
        assert interval.method.startswith("clopper-pearson")
    assert fit.judge is None


def test_fewer_than_three_raters_is_refused():
    with pytest.raises(ValueError, match="at least 3"):
        latent_class_fit(codes=HAND[:, :2], positive=MET, raters=["A", "B"], clusters=np.arange(4))


def records(rows: list[str], labels=("hit", "miss")):
    for unit, row in enumerate(rows):
        for rater, c in enumerate(row):
            label = None if c == "." else labels[0] if c == "1" else labels[1]
            yield (f"u{unit}", "c1", f"r{rater}", label)


def test_summary_names_its_method_and_says_why_when_it_cannot():
    ratings = ratings_build(records=records(ROWS), categories=("hit", "miss"))
    judge = from_text(list(JUDGE))[:, 0]
    section = latent_class_summary(ratings=ratings, judge=judge, bootstrap=None)
    assert section["positive"] == "hit" and section["judge_mode"] == "held_out"
    assert "Dawid-Skene" in section["method"] and "judge held out" in section["method"]
    assert section["judge"]["sensitivity"]["estimate"] == pytest.approx(
        XCHECK_HELD_OUT["judge"][0], abs=1e-7
    )
    assert section["judge"]["sensitivity"]["ci95"] is None  # no bootstrap asked for
    assert section["items"][0] == {
        "unit": "u0",
        "item": "c1",
        "posterior": pytest.approx(XCHECK_HELD_OUT["posterior[:6]"][0], abs=1e-7),
    }

    # "miss" first in the scheme: hit is still the positive class, so nothing flips.
    reordered = ratings_build(records=records(ROWS), categories=("miss", "hit"))
    swapped = np.where(judge == MET, 1, 0)
    again = latent_class_summary(ratings=reordered, judge=swapped, bootstrap=None)
    assert again["prevalence"]["estimate"] == pytest.approx(XCHECK_HELD_OUT["prevalence"])

    two = ratings_build(records=records([row[:2] for row in ROWS]), categories=("hit", "miss"))
    refused = latent_class_summary(ratings=two, judge=None, bootstrap=None)
    assert refused["raters"] == {} and "at least 3" in refused["reason"]
    nominal = [("u0", "c1", rater, label) for rater, label in zip("ABC", "abc", strict=True)]
    three = ratings_build(records=nominal, categories=tuple("abc"))
    refused = latent_class_summary(ratings=three, judge=None, bootstrap=None)
    assert "3 categories" in refused["reason"]


# --- the bootstrap refits' acceleration and several judges in one fit --------------------------

# One resample of a report's study: raters A and C never say met on what the others call not
# met, so their specificities go to 1, where plain EM creeps (its steps shrink like 1/t²).
BOUNDARY = from_text(
    ["111"] * 12
    + ["110"] * 6
    + ["101"] * 12
    + ["100"] * 6
    + ["011"] * 6
    + ["010"] * 6
    + ["001"] * 12
    + ["000"] * 18
)


def test_squarem_refits_reach_plain_ems_optimum_in_a_fraction_of_the_steps():
    pos, neg = _indicators(BOUNDARY, MET)
    settings = {
        "pos": pos,
        "neg": neg,
        "weights": np.ones((1, BOUNDARY.shape[0])),
        "start": _vote_share(pos, neg)[None, :],
        "tolerance": REFIT_TOLERANCE,
        "max_iterations": 20000,
    }
    plain = _em(**settings)
    fast = _em(accelerated=True, **settings)
    assert plain.converged[0] and fast.converged[0]
    assert plain.iterations > 1000 and fast.iterations < plain.iterations / 10
    # Plain EM stops short of the boundary; SQUAREM gets there at least as far up.
    assert fast.log_likelihood[0] >= plain.log_likelihood[0] - 1e-9
    assert fast.posterior == pytest.approx(plain.posterior, abs=5e-3)


def test_several_held_out_judges_share_one_fit_and_each_gets_its_own_figures():
    codes, judge, _ = simulated(n=200)
    other = np.where(np.arange(200) % 5 == 0, NOT_MET, judge)  # says not met more often
    settings = {"codes": codes, "positive": MET, "raters": list("ABCDE")}
    settings["clusters"] = np.arange(200) // 4
    both = latent_class_fit(judge=np.column_stack([judge, other]), **settings)
    for column, figures in zip((judge, other), both.judges, strict=True):
        alone = latent_class_fit(judge=column, **settings).judge
        assert figures.items == alone.items
        assert figures.sensitivity.value == pytest.approx(alone.sensitivity.value, rel=1e-9)
        assert figures.specificity.value == pytest.approx(alone.specificity.value, rel=1e-9)
    first, second = both.judges  # the second says not met where the first does, and more
    assert second.specificity.value >= first.specificity.value
    assert second.sensitivity.value < first.sensitivity.value
    with pytest.raises(ValueError, match="one judge"):
        latent_class_fit(judge=np.column_stack([judge, other]), judge_as_rater=True, **settings)
