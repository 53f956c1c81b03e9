"""Lan–DeMets O'Brien–Fleming boundaries and the decisions taken at a look."""

import itertools
import math

import pytest
from scipy import stats

from validation.statistics.sequential import (
    AT_LEAST,
    FAILED,
    NO_DATA,
    PASSED,
    UNDECIDED,
    WITHIN,
    Condition,
    boundaries_compute,
    condition_from_interval,
    condition_monitor,
    look_fractions,
    spending_obrien_fleming,
    study_monitor,
)

# Published two-sided α = 0.05 bounds (0.025 on each side, O'Brien–Fleming-type spending):
# ldbounds' documentation, `bounds(seq(0.2, 1, 0.2), iuse = c(1, 1), alpha = c(0.025, 0.025))`,
# and gsDesign `gsDesign(k = 5, test.type = 2, sfu = sfLDOF)`: 4.8769 3.3569 2.6803 2.2898
# 2.0310. Recomputed outside the project (throwaway venv, scipy 1.17.1) by another method, the
# multivariate normal CDF of the look covariance sqrt(t_i / t_j) (Genz), which gave these to
# 4 decimals; the unequal and two-look rows come from that computation.
PUBLISHED = [
    ([0.2, 0.4, 0.6, 0.8, 1.0], [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]),
    ([0.5, 1.0], [2.9626, 1.9686]),
    ([0.3, 0.55, 1.0], [3.9286, 2.8079, 1.9740]),
]


@pytest.mark.parametrize(("fractions", "expected"), PUBLISHED)
def test_boundaries_match_published_values(fractions, expected):
    assert boundaries_compute(fractions=fractions) == pytest.approx(expected, abs=2e-4)


def test_one_look_is_the_fixed_design():
    assert boundaries_compute(fractions=[1.0]) == pytest.approx([1.959964], abs=1e-6)


def test_spending_reaches_alpha_at_the_end_and_nothing_at_the_start():
    assert spending_obrien_fleming(t=1.0) == pytest.approx(0.05)
    assert spending_obrien_fleming(t=0.0) == 0.0
    assert spending_obrien_fleming(t=0.2) < spending_obrien_fleming(t=0.4) < 0.05


def test_many_close_looks_stay_finite_and_decrease():
    bounds = boundaries_compute(fractions=[i / 60 for i in range(1, 61)])
    assert all(math.isfinite(b) for b in bounds)
    assert all(a > b for a, b in itertools.pairwise(bounds))
    assert 1.96 < bounds[-1] < 2.3


@pytest.mark.parametrize("fractions", [[0.5, 0.5], [0.6, 0.4], [0.0, 1.0], [0.5, 1.2]])
def test_fractions_must_increase_within_zero_and_one(fractions):
    with pytest.raises(ValueError, match="information fractions"):
        boundaries_compute(fractions=fractions)


def test_look_fractions_every_k_cases():
    assert look_fractions(completed=9, planned=100, every=10) == ()
    assert look_fractions(completed=25, planned=100, every=10) == (0.1, 0.2)
    assert look_fractions(completed=100, planned=95, every=40) == (40 / 95, 80 / 95, 1.0)


def test_condition_from_interval_derives_the_standard_error():
    c = condition_from_interval(name="a", value=0.8, low=0.76, high=0.84, threshold=0.75)
    assert c.se == pytest.approx(0.04 / 1.959964, rel=1e-5)
    assert (
        condition_from_interval(name="a", value=None, low=None, high=None, threshold=0.75).se
        is None
    )


@pytest.mark.parametrize("se", [0.0, -0.01])
def test_a_standard_error_must_be_positive(se):
    # SE = 0 would make value ± c · SE the point itself and pass it at every look.
    with pytest.raises(ValueError, match="positive"):
        Condition(name="c", value=1.0, se=se, threshold=0.8)


def _at(value, se, threshold=0.75, direction=AT_LEAST, critical=2.0, fraction=0.5):
    condition = Condition(name="c", value=value, se=se, threshold=threshold, direction=direction)
    return condition_monitor(
        condition=condition, critical=critical, fraction=fraction, final_critical=2.0
    )


def test_at_least_condition_decisions():
    assert _at(0.85, 0.04).status == PASSED  # low 0.77
    assert _at(0.65, 0.04).status == FAILED  # high 0.73
    assert _at(0.78, 0.04).status == UNDECIDED
    assert _at(None, None).status == NO_DATA
    # The same figures at a stricter (earlier) boundary stay undecided.
    assert _at(0.85, 0.04, critical=3.0).status == UNDECIDED


def test_limits_clip_the_shown_interval_but_not_the_decision():
    condition = Condition(name="c", value=0.97, se=0.02, threshold=0.75, limits=(0.0, 1.0))
    status = condition_monitor(condition=condition, critical=2.0, fraction=0.5, final_critical=2.0)
    assert (status.status, status.value, status.high) == (PASSED, 0.97, 1.0)
    assert status.low == pytest.approx(0.93)


def test_few_cases_carry_the_boundary_to_students_t():
    # z = 2.5 passes a boundary of 2.0 on the normal scale, not with 5 cases (t_4 ≈ 3.0).
    normal = Condition(name="c", value=0.85, se=0.04, threshold=0.75)
    few = Condition(name="c", value=0.85, se=0.04, threshold=0.75, df=4)
    decide = {"critical": 2.0, "fraction": 0.5, "final_critical": 2.0}
    assert condition_monitor(condition=normal, **decide).status == PASSED
    status = condition_monitor(condition=few, **decide)
    assert status.status == UNDECIDED
    t = stats.t.isf(stats.norm.sf(2.0), 4)
    assert status.low == pytest.approx(0.85 - t * 0.04)


def test_within_condition_decisions():
    assert _at(1.0, 1.0, threshold=5, direction=WITHIN).status == PASSED
    assert _at(9.0, 1.0, threshold=5, direction=WITHIN).status == FAILED
    assert _at(-9.0, 1.0, threshold=5, direction=WITHIN).status == FAILED
    assert _at(4.0, 1.0, threshold=5, direction=WITHIN).status == UNDECIDED


def test_futility_when_neither_decision_is_reachable():
    # Right on the threshold late in the study: neither side can be reached by the end.
    futile = _at(0.75, 0.02, fraction=0.9)
    assert futile.status == UNDECIDED and futile.futile
    assert futile.conditional_power < 0.10
    # Trending well above it: passing is likely, no futility.
    hopeful = _at(0.80, 0.03, fraction=0.5)
    assert hopeful.status == UNDECIDED and not hopeful.futile


def test_study_monitor_before_the_first_look():
    monitor = study_monitor(conditions=[], completed=3, planned=50, every=10)
    assert (monitor.look, monitor.critical, monitor.next_look_at) == (0, None, 10)
    assert not monitor.decided


def test_study_monitor_decides_when_every_condition_is_decided():
    passing = Condition(name="agreement", value=0.9, se=0.02, threshold=0.75)
    open_one = Condition(name="bias", value=4.0, se=2.0, threshold=5, direction=WITHIN)
    monitor = study_monitor(conditions=[passing], completed=45, planned=100, every=20)
    assert monitor.look == 2
    assert monitor.critical == pytest.approx(boundaries_compute(fractions=[0.2, 0.4])[1])
    assert monitor.next_look_at == 60
    assert monitor.decided
    both = study_monitor(conditions=[passing, open_one], completed=45, planned=100, every=20)
    assert [c.status for c in both.conditions] == [PASSED, UNDECIDED]
    assert not both.decided
