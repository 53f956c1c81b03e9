"""The score-bias conditions across models: Holm's step-down at family-wise 5 % (issue 42)."""

import pytest
from scipy import stats

from validation.gate import FAILED, PASSED, UNDECIDED, GateConfig, gate_decide
from validation.statistics.holm import holm_adjust, holm_step_down

DELTA = 5.0
PASSING = {
    "agreement": {"value": 0.9, "low": 0.85, "high": 0.95, "method": "BCa"},
    "noninferiority": {"difference": 0.0, "ci95": {"low": -0.02, "high": 0.02}},
    "catastrophic": {"gold_hits": 20, "recall_hit": {"value": 1.0, "low": 0.86, "high": 1.0}},
}


def _interval(value: float, se: float, level: float) -> dict:
    z = stats.norm.isf((1 - level) / 2)
    return {"low": value - z * se, "high": value + z * se, "method": "normal"}


def _row(model: str, value: float, models: int, se: float = 1.0) -> dict:
    """A model's score effect row as ``score_effect`` gives it, with normal intervals."""
    holm = [
        {"family": r, "alpha": 0.05, "level": 1 - 0.05 / r} | _interval(value, se, 1 - 0.05 / r)
        for r in range(2, models + 1)
    ]
    return {"model": model, "difference": value, "difference_ci95": _interval(value, se, 0.95)} | (
        {"difference_holm": holm} if holm else {}
    )


def _p_outside(value: float, se: float = 1.0) -> float:
    """The p-value whose inversion is "the 1 − p interval lies wholly outside ±δ"."""
    return min(1.0, 2 * stats.norm.sf((abs(value) - DELTA) / se))


def _gate(rows):
    return gate_decide(config=GateConfig(score_bias_max=DELTA), score_bias=rows, **PASSING)


def _bias(decision):
    return {c.subject: c for c in decision.conditions if c.name == "score_bias"}


def test_one_model_outside_at_95_is_failed_as_before():
    decision = _gate([_row("m1", 7.1, models=1)])
    assert _bias(decision)["m1"].status == FAILED and _bias(decision)["m1"].adjusted is None
    assert decision.decision == FAILED
    assert decision.as_dict()["multiplicity"]["adjusted"] is False


def test_holm_turns_a_borderline_failure_undecided_among_three_models():
    # By hand: p = 2 Φ(−(|d| − 5) / 1): m2 (7.1) 0.0357, m1 (0) and m3 (1) 1. Holm's first step
    # needs p ≤ 0.05 / 3 = 0.0167: nothing falls, so m2, outside ±5 at 95 % ([5.14, 9.06]),
    # is undecided, and the gate with it.
    assert _p_outside(7.1) == pytest.approx(0.035729, abs=1e-6)
    rows = [_row("m1", 0.0, 3), _row("m2", 7.1, 3), _row("m3", 1.0, 3)]
    decision = _gate(rows)
    b = _bias(decision)
    assert b["m2"].adjusted["unadjusted_status"] == FAILED and b["m2"].status == UNDECIDED
    assert b["m2"].adjusted["level"] == pytest.approx(1 - 0.05 / 3)
    assert "Holm's step-down across 3 models" in b["m2"].reason
    assert b["m1"].status == b["m3"].status == PASSED
    # Each model on its own 95 % interval (the rule before) would have failed the gate.
    assert FAILED in [c.adjusted["unadjusted_status"] for c in b.values()]
    assert decision.decision == UNDECIDED
    assert decision.as_dict()["multiplicity"] | {"text": None} == {
        "rule": "holm",
        "conditions": "score_bias",
        "familywise_alpha": 0.05,
        "models": 3,
        "adjusted": True,
        "text": None,
    }


# statsmodels 0.15.0 (a throwaway venv, not a project dependency),
# multipletests(p, alpha=0.05, method="holm") on the p-values of values (8.0, 7.1, 6.5) with
# SE 1 against ±5, p = [0.0026998, 0.0357288, 0.1336144]: reject [True, False, False],
# adjusted [0.00809939, 0.07145768, 0.1336144].
STATSMODELS_HOLM = [0.00809939, 0.07145768, 0.1336144]


def test_step_down_matches_holm_by_hand_and_statsmodels():
    values = {"a": 8.0, "b": 7.1, "c": 6.5}
    p = [_p_outside(v) for v in values.values()]
    assert holm_adjust(p) == pytest.approx(STATSMODELS_HOLM, abs=1e-6)
    b = _bias(_gate([_row(m, v, 3) for m, v in values.items()]))
    # a: p 0.0027 ≤ 0.05 / 3 falls at r = 3; b: 0.0357 > 0.05 / 2 stops the step-down; c was
    # never outside at 95 % ([4.54, 8.46]).
    assert (b["a"].status, b["b"].status, b["c"].status) == (FAILED, UNDECIDED, UNDECIDED)
    assert b["a"].adjusted["open"] == 3 and b["b"].adjusted["open"] == 2
    assert [c.status == FAILED for c in b.values()] == [q <= 0.05 for q in STATSMODELS_HOLM]


@pytest.mark.parametrize(
    "p",
    [[0.001, 0.04, 0.03, 0.2, 0.012], [0.01, 0.011, 0.012], [0.02, 0.024, 0.3], [0.5]],
)
def test_step_down_on_tests_rejects_what_adjusted_p_values_reject(p):
    fallen = holm_step_down(tests=list(range(len(p))), rejects=lambda i, r: p[i] <= 0.05 / r)
    assert set(fallen) == {i for i, q in enumerate(holm_adjust(p)) if q <= 0.05}


@pytest.mark.django_db
def test_the_report_carries_the_rule_and_each_models_holm_intervals():
    from tests.builders.studies import rated_study
    from validation.report import report_compute
    from validation.report.selectors import study_report_data
    from validation.statistics import BootstrapSettings

    report = report_compute(
        data=study_report_data(study=rated_study(name="multi")),
        bootstrap=BootstrapSettings(resamples=200),
    )
    judge = report["judges"][0]
    rows = [r for r in judge["score_effect"]["models"] if "difference_ci95" in r]
    rule = judge["gate"]["multiplicity"]
    assert rule["rule"] == "holm" and rule["models"] <= len(rows) == 3  # rated_study's models
    assert [h["family"] for h in rows[0]["difference_holm"]] == [2, 3]
    assert all(
        c["adjusted"]["family"] == rule["models"]
        for c in judge["gate"]["conditions"]
        if c["name"] == "score_bias" and c["adjusted"]
    )
