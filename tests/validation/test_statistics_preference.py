"""Pairwise preference statistics (validation.statistics.preference and
preference_agreement): figures solved by hand, Bradley–Terry against choix, the length-bias
logistic against scipy's optimiser."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from validation.statistics.preference import (
    PRIOR_PSEUDO_COUNT,
    PreferenceError,
    bradley_terry,
    win_rate,
)
from validation.statistics.preference_agreement import (
    choice_agreement,
    human_baseline,
    length_bias,
    logistic_fit,
    position_consistency,
    ranking_tau,
    rubric_preference,
)
from validation.statistics.results import BootstrapSettings

FEW = BootstrapSettings(resamples=300, seed=7)


def repeated(case: str, a: str, b: str, wins_a: int, wins_b: int, ties: int = 0) -> list:
    return (
        [(f"{case}{n}", a, b, "a") for n in range(wins_a)]
        + [(f"{case}w{n}", a, b, "b") for n in range(wins_b)]
        + [(f"{case}t{n}", a, b, "tie") for n in range(ties)]
    )


# Strengths 4 : 2 : 1 give p(x>y) = 2/3, p(y>z) = 2/3, p(x>z) = 4/5; observed shares that equal
# these satisfy the likelihood equations W_i = Σ_j n_ij p_ij exactly, so they are the MLE.
# Normalised to geometric mean 1 (÷ 2): 2, 1, 1/2.
HAND = (
    repeated("xy", "x", "y", 2, 1) + repeated("yz", "y", "z", 2, 1) + repeated("xz", "x", "z", 4, 1)
)


def test_a_three_model_example_solved_by_hand():
    fitted = bradley_terry(HAND)
    assert fitted.prior_reason is None and fitted.converged
    assert fitted.strength == pytest.approx({"x": 2.0, "y": 1.0, "z": 0.5}, abs=1e-9)
    assert fitted.log_strength.sum() == pytest.approx(0.0, abs=1e-12)
    p = fitted.as_dict()["p_win"]
    assert p["x"]["z"] == pytest.approx(0.8) and p["z"]["x"] == pytest.approx(0.2)
    assert p["y"]["z"] == pytest.approx(2 / 3) and "x" not in p["x"]


def test_a_tie_is_half_a_win_for_each_side():
    # x–y: one win and two ties = 2 of 3, as above; the strengths are the same.
    with_ties = repeated("xy", "x", "y", 1, 0, ties=2) + HAND[3:]
    assert bradley_terry(with_ties).strength == pytest.approx(bradley_terry(HAND).strength)
    rates = win_rate(with_ties).as_dict()
    assert rates["x"]["y"] == pytest.approx(2 / 3) and rates["y"]["x"] == pytest.approx(1 / 3)
    dropped = bradley_terry(with_ties, ties="drop")
    assert dropped.comparisons == len(with_ties) - 2
    assert dropped.as_dict()["ties"] == "left out" and dropped.strength["x"] > 2


def test_a_cycle_gives_equal_strengths():
    cycle = [("q1", "x", "y", "a"), ("q2", "y", "z", "a"), ("q3", "z", "x", "a")]
    assert bradley_terry(cycle).strength == pytest.approx({"x": 1, "y": 1, "z": 1})


# Fixed data for the cross-check: 18 comparisons of four models in six cases, three ties.
CROSS = [
    ("c1", "alpha", "beta", "a"), ("c1", "gamma", "delta", "b"), ("c1", "alpha", "gamma", "a"),
    ("c2", "beta", "gamma", "tie"), ("c2", "delta", "alpha", "b"), ("c2", "beta", "delta", "a"),
    ("c3", "alpha", "beta", "b"), ("c3", "gamma", "delta", "a"), ("c3", "alpha", "delta", "tie"),
    ("c4", "beta", "gamma", "a"), ("c4", "gamma", "alpha", "a"), ("c4", "delta", "beta", "a"),
    ("c5", "alpha", "gamma", "a"), ("c5", "beta", "delta", "tie"), ("c5", "beta", "alpha", "b"),
    ("c6", "gamma", "beta", "b"), ("c6", "delta", "gamma", "tie"), ("c6", "alpha", "delta", "a"),
]  # fmt: skip


def test_bradley_terry_agrees_with_choix():
    # choix 0.4.1 (numpy 2.4.6, scipy 1.17.1), run outside the project: every decisive
    # comparison given twice and each tie once each way (half a win each), then
    # choix.ilsr_pairwise(4, pairs, tol=1e-12) and opt_pairwise(..., alpha=0) both gave these
    # log-strengths, centred to mean 0, for alpha, beta, gamma, delta.
    choix = [0.7317037712, 0.1735839325, -0.5447400293, -0.3605476744]
    fitted = bradley_terry(CROSS)
    assert fitted.models == ("alpha", "beta", "delta", "gamma")
    found = dict(zip(fitted.models, fitted.log_strength, strict=True))
    expected = dict(zip(("alpha", "beta", "gamma", "delta"), choix, strict=True))
    assert found == pytest.approx(expected, abs=1e-8)


def test_an_infinite_mle_is_regularised_and_says_so():
    # x never loses: 0.5 wins added each way per compared pair; x–y 2.5 : 0.5 and y–z
    # 1.5 : 0.5 on a tree of comparisons, so s_x / s_y = 5, s_y / s_z = 3: (15, 3, 1) / 45^(1/3).
    data = repeated("xy", "x", "y", 2, 0) + repeated("yz", "y", "z", 1, 0)
    fitted = bradley_terry(data)
    assert fitted.prior_pseudo_count == PRIOR_PSEUDO_COUNT == 0.5
    assert "never loses: x" in fitted.prior_reason and "never wins: z" in fitted.prior_reason
    scale = 45 ** (1 / 3)
    assert fitted.strength == pytest.approx({"x": 15 / scale, "y": 3 / scale, "z": 1 / scale})
    assert fitted.as_dict()["prior"]["used"] is True


def test_a_disconnected_graph_is_refused():
    with pytest.raises(PreferenceError, match=r"2 groups never compared.*w, z"):
        bradley_terry([("q1", "x", "y", "a"), ("q1", "y", "x", "a"), ("q2", "z", "w", "a")])


@pytest.mark.parametrize(
    ("comparison", "match"),
    [(("q", "x", "y", "A"), "not a, b or tie"), (("q", "x", "x", "a"), "with itself")],
)
def test_bad_comparisons_are_refused(comparison, match):
    with pytest.raises(PreferenceError, match=match):
        bradley_terry([comparison])


def test_intervals_resample_cases_and_hold_the_estimate():
    data = [(f"{case}-{k}", a, b, w) for k in range(5) for (case, a, b, w) in CROSS]
    fitted = bradley_terry(data, bootstrap=FEW)
    for model, strength in fitted.strength.items():
        interval = fitted.strength_ci[model]
        assert interval.low < strength < interval.high and interval.clusters == 30
    p = fitted.p_win_ci["alpha"]["gamma"]
    assert p.low < fitted.as_dict()["p_win"]["alpha"]["gamma"] < p.high <= 1
    again = bradley_terry(data, bootstrap=FEW)
    assert again.strength_ci == fitted.strength_ci  # seeded


# Judge against the experts' majority, by hand. Pairs in name order; codes first/second/tie:
# experts q1 x>y, q1 y~z, q2 z>x, q3 y>x; judge q1 x>y (shown as y, x: b), q1 y>z, q2 z>x,
# q3 x>y. With ties: 2 of 4 agree; marginals experts (1, 2, 1), judge (3, 1, 0), chance 5/16,
# κ = (1/2 − 5/16) / (11/16) = 3/11. Without ties (q1 y–z left out): 2 of 3; chance 4/9,
# κ = (2/3 − 4/9) / (5/9) = 2/5.
EXPERTS = [
    ("q1", "x", "y", "a"),
    ("q1", "y", "z", "tie"),
    ("q2", "x", "z", "b"),
    ("q3", "x", "y", "b"),
]
JUDGE = [("q1", "y", "x", "b"), ("q1", "y", "z", "a"), ("q2", "x", "z", "b"), ("q3", "x", "y", "a")]


def test_judge_against_the_majority_with_and_without_ties():
    found = choice_agreement(reference=EXPERTS, labeller=JUDGE, bootstrap=FEW)
    assert found.pairs == 4 and found.dropped_for_ties == 1
    assert found.with_ties.agreement.value == pytest.approx(0.5)
    assert found.with_ties.cohen_kappa.value == pytest.approx(3 / 11)
    assert found.without_ties.agreement.value == pytest.approx(2 / 3)
    assert found.without_ties.cohen_kappa.value == pytest.approx(2 / 5)
    assert found.with_ties.agreement.interval.clusters == 3
    assert found.as_dict()["without_ties"]["n"] == 3


def test_a_labeller_choosing_twice_is_refused():
    with pytest.raises(PreferenceError, match="twice"):
        choice_agreement(reference=EXPERTS, labeller=[*JUDGE, ("q1", "x", "y", "a")])


def test_the_human_baseline_each_expert_against_the_other_two():
    # q1: A a, B a, C b (x, y): A's and B's others disagree (skipped); C against a: miss.
    # q2: all three b: three agreements. q3: A tie, B tie, C a: C against tie: miss, A's and
    # B's others (tie, a) disagree. With ties 3 of 5; without ties only q1 C and q2: 3 of 4.
    ratings = [("q1", "x", "y", r, w) for r, w in zip("ABC", "aab", strict=True)]
    ratings += [("q2", "y", "x", r, "a") for r in "ABC"]
    ratings += [("q3", "x", "y", r, w) for r, w in zip("ABC", ["tie", "tie", "a"], strict=True)]
    found = human_baseline(ratings)
    assert found.with_ties.agreement.value == pytest.approx(3 / 5) and found.pairs == 5
    assert found.without_ties.agreement.value == pytest.approx(3 / 4)
    assert found.dropped_for_ties == 1


def test_position_consistency_by_hand():
    # q1 kept x in both orders; q2 flipped (x first, then y first): a tie; q3 tie both ways;
    # q4 judged in one order only. Consistent 2 of 3; the first shown won 4 of 5 decisive.
    verdicts = [
        ("q1", "x", "y", "a"), ("q1", "y", "x", "b"),
        ("q2", "x", "y", "a"), ("q2", "y", "x", "a"),
        ("q3", "x", "y", "tie"), ("q3", "y", "x", "tie"),
        ("q4", "x", "y", "a"),
    ]  # fmt: skip
    found = position_consistency(verdicts, bootstrap=FEW)
    assert found.consistent.value == pytest.approx(2 / 3) and found.unpaired == 1
    assert found.first_shown_wins.value == pytest.approx(4 / 5)
    assert [c.winner for c in found.combined] == ["a", "tie", "tie"]
    with pytest.raises(PreferenceError, match="same order"):
        position_consistency([*verdicts, ("q4", "x", "y", "b")])


def _simulated(slope: float, intercept: float, n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(100, 1200, size=(n, 2))
    x = (lengths[:, 0] - lengths[:, 1]) / 100
    chosen = rng.random(n) < 1 / (1 + np.exp(-(intercept + slope * x)))
    return [
        (f"q{i // 3}", "m", "n", "a" if c else "b", int(a), int(b))
        for i, (c, (a, b)) in enumerate(zip(chosen, lengths, strict=True))
    ]


def test_the_length_bias_logistic_matches_scipy_and_recovers_the_bias():
    judge, experts = _simulated(0.6, 0.3, 3000, seed=1), _simulated(0.0, 0.0, 3000, seed=2)
    found = length_bias({"judge": judge, "experts": experts}, bootstrap=FEW)
    x = np.array([(r[4] - r[5]) / 100 for r in judge])
    y = np.array([r[3] == "a" for r in judge], dtype=float)

    def negative_log_likelihood(beta):
        eta = beta[0] + beta[1] * x
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    optimum = minimize(negative_log_likelihood, np.zeros(2), method="BFGS", tol=1e-10).x
    assert found.intercepts["judge"].value == pytest.approx(optimum[0], abs=1e-5)
    assert found.slopes["judge"].value == pytest.approx(optimum[1], abs=1e-5)
    assert abs(found.slopes["judge"].value - 0.6) < 0.08  # the simulated bias, recovered
    assert abs(found.slopes["experts"].value) < 0.06
    difference = found.slopes["difference"]
    assert difference.interval.low > 0.3 and difference.value == pytest.approx(
        found.slopes["judge"].value - found.slopes["experts"].value
    )
    judge_ci = found.slopes["judge"].interval
    assert judge_ci.low < 0.6 < judge_ci.high and judge_ci.clusters == 1000


def test_length_bias_ties_are_left_out_and_separation_is_no_estimate():
    separated = [("q1", "m", "n", "a", 500, 100), ("q2", "m", "n", "b", 100, 500),
                 ("q3", "m", "n", "tie", 100, 500)]  # fmt: skip
    found = length_bias({"judge": separated})
    assert found.ties_left_out == {"judge": 1}
    assert found.slopes["judge"].value is None and "separated" in found.slopes["judge"].reason
    assert np.isnan(logistic_fit(np.array([1.0, -1.0]), np.array([1.0, 0.0]), np.ones(2))).all()


def test_kendall_tau_between_two_rankings():
    found = ranking_tau({"x": 3, "y": 2, "z": 1, "w": 0}, {"x": 3, "y": 1, "z": 2, "v": 9})
    # x, y, z: pairs (x,y) and (x,z) concordant, (y,z) discordant: τ = 1/3.
    assert found["models"] == ["x", "y", "z"] and found["tau_b"] == pytest.approx(1 / 3)


def test_rubric_against_preference_by_hand():
    scores = {("q1", "x"): 50, ("q1", "y"): 40, ("q1", "z"): 40, ("q2", "x"): 10,
              ("q2", "z"): 20, ("q3", "x"): 1, ("q4", "x"): 5, ("q4", "y"): 9}  # fmt: skip
    preferences = [*EXPERTS, ("q4", "x", "y", "a"), ("q1", "x", "z", "a")]
    found = rubric_preference(preferences, case_scores=scores, bootstrap=FEW)
    # kept: q1 x>y (50 > 40, agrees), q2 z (20 > 10, agrees), q4 x (5 < 9, disagrees),
    # q1 x>z (50 > 40, agrees): 3 of 4; q1 y~z a tie, q3 unscored.
    assert found.share.value == pytest.approx(3 / 4) and found.share.n == 4
    assert (found.preference_ties, found.score_ties, found.unscored) == (1, 0, 1)
    assert found.share.interval is not None
    assert math.isclose(found.as_dict()["share"]["value"], 0.75)
