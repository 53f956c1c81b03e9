"""The judge's gate, decided in one pure function for the report, the badge and the CLI."""

import pytest

from validation.gate import (
    AT_LEAST,
    FAILED,
    NOT_ENOUGH_DATA,
    PASSED,
    UNDECIDED,
    WITHIN,
    GateConfig,
    condition_decide,
    gate_decide,
    overall_decide,
)


@pytest.mark.parametrize(
    ("value", "low", "high", "status"),
    [
        (0.80, 0.77, 0.83, PASSED),
        (0.75, 0.75, 0.80, PASSED),  # the threshold itself passes
        (0.80, 0.70, 0.88, UNDECIDED),  # the interval straddles: the point does not decide
        (0.70, 0.60, 0.74, FAILED),  # wholly below
        (0.70, 0.60, 0.75, UNDECIDED),  # the upper bound touches the threshold
        (0.80, None, None, NOT_ENOUGH_DATA),  # no interval
        (None, None, None, NOT_ENOUGH_DATA),
    ],
)
def test_at_least(value, low, high, status):
    assert (
        condition_decide(value=value, low=low, high=high, threshold=0.75, direction=AT_LEAST)
        == status
    )


@pytest.mark.parametrize(
    ("low", "high", "status"),
    [
        (-4.9, 5.0, PASSED),
        (-34.8, -7.3, FAILED),  # the issue's synthetic judge: −18.6 [−34.8, −7.3]
        (5.1, 9.0, FAILED),
        (-6.0, 2.0, UNDECIDED),
    ],
)
def test_within(low, high, status):
    value = (low + high) / 2
    assert (
        condition_decide(value=value, low=low, high=high, threshold=5.0, direction=WITHIN) == status
    )


def test_a_wider_interval_re_decides_a_condition():
    """What a sequential design does at an interim look: same figure, larger critical value."""
    value, half = 0.82, 0.05
    fixed = condition_decide(
        value=value, low=value - half, high=value + half, threshold=0.75, direction=AT_LEAST
    )
    wide = condition_decide(
        value=value, low=value - 2 * half, high=value + 2 * half, threshold=0.75, direction=AT_LEAST
    )
    assert (fixed, wide) == (PASSED, UNDECIDED)


def test_unknown_direction_is_refused():
    with pytest.raises(ValueError, match="direction"):
        condition_decide(value=1, low=1, high=1, threshold=0, direction="above")


@pytest.mark.parametrize(
    ("statuses", "overall"),
    [
        ([PASSED, PASSED], PASSED),
        ([PASSED, NOT_ENOUGH_DATA], NOT_ENOUGH_DATA),
        ([PASSED, UNDECIDED], UNDECIDED),
        ([UNDECIDED, NOT_ENOUGH_DATA], NOT_ENOUGH_DATA),  # a condition with nothing to decide on
        ([NOT_ENOUGH_DATA, FAILED, PASSED], FAILED),  # a failure is final
        ([], NOT_ENOUGH_DATA),
    ],
)
def test_overall(statuses, overall):
    assert overall_decide(statuses) == overall


def _inputs(**changes):
    inputs = {
        "agreement": {"value": 0.86, "low": 0.80, "high": 0.90, "n": 900},
        "noninferiority": {"difference": 0.01, "ci95": {"low": -0.03, "high": 0.05}},
        "catastrophic": {"gold_hits": 12, "recall_hit": {"value": 0.95, "low": 0.85, "high": 1}},
        "score_bias": [
            {"model": "a", "difference": 1.0, "difference_ci95": {"low": -2.0, "high": 4.0}},
            {"model": "b", "difference": -1.0, "difference_ci95": {"low": -3.0, "high": 1.0}},
        ],
    }
    return inputs | changes


def test_every_condition_passed_passes_the_gate():
    gate = gate_decide(config=GateConfig(), **_inputs())
    assert gate.decision == PASSED
    assert [(c.name, c.subject, c.status) for c in gate.conditions] == [
        ("agreement", None, PASSED),
        ("noninferiority", None, PASSED),
        ("catastrophic_recall", None, PASSED),
        ("score_bias", "a", PASSED),
        ("score_bias", "b", PASSED),
    ]
    noninferiority = gate.conditions[1]
    assert (noninferiority.threshold, noninferiority.direction) == (-0.05, AT_LEAST)


def test_the_issues_synthetic_judge_fails_on_score_bias_though_agreement_passes():
    bias = [{"model": "m", "difference": -18.6, "difference_ci95": {"low": -34.8, "high": -7.3}}]
    gate = gate_decide(config=GateConfig(), **_inputs(score_bias=bias))
    assert gate.conditions[0].status == PASSED and gate.decision == FAILED


def test_too_few_catastrophic_hits_is_not_enough_data_whatever_the_recall():
    catastrophic = {"gold_hits": 9, "recall_hit": {"value": 1.0, "low": 0.9, "high": 1.0}}
    gate = gate_decide(config=GateConfig(), **_inputs(catastrophic=catastrophic))
    condition = gate.conditions[2]
    assert condition.status == NOT_ENOUGH_DATA and "9 gold catastrophic" in condition.reason
    assert gate.decision == NOT_ENOUGH_DATA
    looser = gate_decide(
        config=GateConfig(catastrophic_min_hits=9), **_inputs(catastrophic=catastrophic)
    )
    assert looser.decision == PASSED


def test_a_zero_width_interval_decides_nothing():
    # Judge and experts perfect on every resample: judge − experts is [0, 0], which would
    # pass −0.05 ≤ low. A degenerate bootstrap is no interval: not enough data, and why.
    noninferiority = {"difference": 0.0, "ci95": {"low": 0.0, "high": 0.0, "method": "percentile"}}
    gate = gate_decide(config=GateConfig(), **_inputs(noninferiority=noninferiority))
    condition = gate.conditions[1]
    assert condition.status == NOT_ENOUGH_DATA and "zero width" in condition.reason
    assert gate.decision == NOT_ENOUGH_DATA


def test_the_study_configures_every_threshold():
    config = GateConfig.from_mapping(
        {"agreement_min": 0.9, "noninferiority_margin": 0.0, "score_bias_max": 0.5, "x": 1}
    )
    gate = gate_decide(config=config, **_inputs())
    statuses = {(c.name, c.subject): c.status for c in gate.conditions}
    assert statuses[("agreement", None)] == UNDECIDED  # [0.80, 0.90] straddles 0.9
    assert statuses[("noninferiority", None)] == UNDECIDED  # −0.03 < 0
    assert statuses[("score_bias", "b")] == UNDECIDED
    assert gate.as_dict()["config"]["agreement_min"] == 0.9


def test_undefined_figures_carry_their_reason():
    gate = gate_decide(
        config=GateConfig(),
        agreement={"value": None, "n": 0, "reason": "no items"},
        noninferiority={"difference": None, "ci95": None, "reason": "judge: no pairs"},
        catastrophic={"gold_hits": 0, "recall_hit": {"value": None}},
        score_bias=[],
    )
    reasons = [(c.name, c.status, c.reason) for c in gate.conditions]
    assert reasons[0] == ("agreement", NOT_ENOUGH_DATA, "no items")
    assert reasons[1] == ("noninferiority", NOT_ENOUGH_DATA, "judge: no pairs")
    assert reasons[3] == ("score_bias", NOT_ENOUGH_DATA, "no model scored")
    assert gate.decision == NOT_ENOUGH_DATA
