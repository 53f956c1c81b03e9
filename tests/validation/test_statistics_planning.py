"""The study planner: design effect, ICC from a pilot, and its sample size by simulation."""

import numpy as np
import pytest

from benchmarks.sequential_simulation import planner_check
from validation.statistics.planning import (
    DEFAULT_ICC,
    ICC_DEFAULT,
    ICC_PILOT,
    PlanningError,
    design_effect,
    icc_binary,
    plan_cases,
)


def test_design_effect_equal_cases_is_the_textbook_formula():
    assert design_effect(icc=0.1, sizes=[20] * 7) == pytest.approx(1 + 19 * 0.1)
    # Unequal cases cost more than equal ones of the same mean.
    assert design_effect(icc=0.1, sizes=[10, 30]) > design_effect(icc=0.1, sizes=[20, 20])


def test_icc_hand_computed():
    # Clusters all-or-nothing: the indicator is explained by its cluster.
    assert icc_binary(values=[1, 1, 0, 0, 0, 0, 1, 1], clusters="aabbccdd") == pytest.approx(1.0)
    # Hand-computed ANOVA estimate: clusters (1,0,0), (1,1,0), (0,0,0): N=9, k=3, Y=3,
    # Σy²/m = 1/3 + 4/3 + 0 = 5/3; MSB = (5/3 − 1)/2 = 1/3; MSW = (3 − 5/3)/6 = 2/9;
    # m0 = 3; ICC = (1/3 − 2/9) / (1/3 + 2 · 2/9) = (1/9) / (7/9) = 1/7.
    values = [1, 0, 0, 1, 1, 0, 0, 0, 0]
    assert icc_binary(values=values, clusters="aaabbbccc") == pytest.approx(1 / 7)
    # Every item agrees: no variation, no estimate.
    assert icc_binary(values=[0] * 6, clusters="aabbcc") is None


def test_plan_states_its_icc_source_and_grows_with_the_icc():
    sizes = [20] * 296
    default = plan_cases(items_per_case=sizes)
    assert (default.icc, default.icc_source) == (DEFAULT_ICC, ICC_DEFAULT)
    pilot = plan_cases(items_per_case=sizes, icc=0.02)
    assert pilot.icc_source == ICC_PILOT
    assert pilot.cases < default.cases
    assert default.fraction == pytest.approx(default.cases / 296)
    assert default.expected_half_width < default.half_width


def test_plan_beyond_the_dataset_is_flagged():
    plan = plan_cases(items_per_case=[10] * 20, half_width=0.01)
    assert not plan.reachable and plan.fraction == 1.0 and plan.cases > 20


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"expected_agreement": 1.0}, "expected agreement"),
        ({"half_width": 0.0}, "half-width"),
        ({"icc": 1.5}, "ICC"),
    ],
)
def test_plan_refuses_bad_input(options, message):
    with pytest.raises(PlanningError, match=message):
        plan_cases(items_per_case=[10] * 50, **options)


def test_planned_studies_reach_the_half_width_in_ninety_percent_of_draws():
    """A small seeded version of benchmarks/sequential_simulation.py (c): if the planner
    forgot its assurance (the plain formula), about half the studies would miss."""
    sizes = np.random.default_rng(7).integers(4, 24, size=296) * 2
    result = planner_check(
        sizes=sizes, agreement=0.85, half_width=0.04, icc=0.1, draws=400, seed=11
    )
    assert result["planned"]["hit"] >= 0.90
    assert result["plain"]["hit"] < 0.75
