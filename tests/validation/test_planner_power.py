"""The planner's power for every gate condition (`study plan`, issue 42 item 5)."""

import io
import json
import math

import pytest
from django.core.management import call_command
from scipy import stats

from tests.builders.studies import dataset_with_responses
from validation.gate import GateConfig
from validation.statistics.power import (
    PowerAssumptions,
    agreement_power,
    catastrophic_power_exact,
    catastrophic_power_simulated,
    gate_power,
    simulate_score_bias,
)
from validation.statistics.proportion import clopper_pearson

GATE = GateConfig().as_dict()


def test_catastrophic_power_by_hand_on_three_criteria():
    # 3 criteria, each a gold hit with chance ½, each caught with chance 0.9. Clopper–Pearson
    # lower bounds (95 %): 1/1 0.025, 2/2 0.158, 1/2 0.0126, 3/3 0.292, 2/3 0.094.
    # (statsmodels 0.15.0 proportion_confint(x, h, method="beta") gives the same bounds.)
    bounds = [clopper_pearson(successes=x, trials=h, level=0.95)[0]
              for x, h in ((1, 1), (2, 2), (1, 2), (3, 3), (2, 3))]  # fmt: skip
    assert bounds == pytest.approx(
        [0.025, 0.15811388300841897, 0.01257911709342505, 0.2924017738212866,
         0.09429932405024609], abs=1e-12,
    )  # fmt: skip
    # Threshold 0.25: only 3 of 3 passes: ½³ · 0.9³ = 0.091125.
    power = catastrophic_power_exact(
        criteria=3, prevalence=0.5, recall=0.9, threshold=0.25, min_hits=1
    )
    assert power == pytest.approx(0.125 * 0.729, abs=1e-12)
    # Threshold 0.1: 2 of 2 passes too: P(H = 2) · 0.9² + P(H = 3) · 0.9³ = 0.394875.
    power = catastrophic_power_exact(
        criteria=3, prevalence=0.5, recall=0.9, threshold=0.1, min_hits=1
    )
    assert power == pytest.approx(0.375 * 0.81 + 0.125 * 0.729, abs=1e-12)
    # The gate's minimum of hits: with 3 needed only H = 3 counts.
    power = catastrophic_power_exact(
        criteria=3, prevalence=0.5, recall=0.9, threshold=0.1, min_hits=3
    )
    assert power == pytest.approx(0.125 * 0.729, abs=1e-12)


def test_catastrophic_simulation_agrees_with_the_exact_sum():
    exact = catastrophic_power_exact(
        criteria=60, prevalence=0.3, recall=0.9, threshold=0.7, min_hits=10
    )
    simulated, error = catastrophic_power_simulated(
        criteria=60, prevalence=0.3, recall=0.9, threshold=0.7, min_hits=10,
        simulations=20000, seed=3,
    )  # fmt: skip
    assert 0.2 < exact < 0.95  # a figure that tells the two apart
    assert abs(simulated - exact) < 4 * error


def test_agreement_power_is_the_normal_closed_form():
    # p 0.85 against 0.75, DE 2, 10 items per case, 20 cases: SE = √(0.1275 · 2 / 200).
    row = agreement_power(
        expected=0.85, threshold=0.75, design_effect=2.0, items_per_case=10.0,
        cases=20, available=100, target=0.8,
    )  # fmt: skip
    se = math.sqrt(0.85 * 0.15 * 2 / 200)
    assert row.power == pytest.approx(stats.norm.cdf(0.1 / se - 1.959964), abs=1e-6)
    # (1.959964 + 0.841621)² · 0.255 / (0.01 · 10) = 20.01 → 21 cases.
    assert row.cases_needed == 21 and row.reachable


def test_score_bias_simulation_agrees_with_the_closed_form_without_catastrophes():
    # One ability in every case: equal weights, a plain mean of Normal(1, 30²) differences;
    # the interval d̂ ± z·SE lies within ±5 with chance Φ((5 − 1)/SE − z) − Φ((−5 − 1)/SE + z).
    cases = [frozenset({"warmth"})] * 300
    assumptions = PowerAssumptions(
        catastrophic_prevalence=0.0, catastrophic_false_alarm=0.0, score_bias=1.0,
        case_spread=30.0, simulations=4000, seed=11,
    )  # fmt: skip
    run = simulate_score_bias(
        case_abilities=cases, models=1, cases=300, assumptions=assumptions, threshold=5.0
    )
    simulated = run.passed[:, 0].mean()
    error = math.sqrt(simulated * (1 - simulated) / 4000)
    se, z = 30 / math.sqrt(300), 1.959964
    closed = stats.norm.cdf(4 / se - z) - stats.norm.cdf(-6 / se + z)
    assert closed == pytest.approx(0.570, abs=0.001)
    # Monte Carlo error, plus the estimated (not known) spread behind each interval.
    assert abs(simulated - closed) < 4 * error + 0.01


def _power(**overrides):
    cases = [frozenset({"warmth", "humor"}), frozenset({"warmth"})] * 20
    return gate_power(
        cases=40, items_per_case=20.0, design_effect=2.0, expected_agreement=0.85,
        case_abilities=cases, catastrophic_per_case=2.0, models=["a", "b"], gate=GATE,
        assumptions=PowerAssumptions(simulations=500, **overrides),
    )  # fmt: skip


def test_conditions_out_of_reach_of_the_dataset_are_marked_unreachable():
    # 40 cases, 80 catastrophic criteria, 5 % prevalence: 4 hits expected, the gate needs 10.
    power = _power()
    by_name = {(c.name, c.subject): c for c in power.conditions}
    cat = by_name["catastrophic_recall", None]
    assert cat.details["expected_gold_hits"] == pytest.approx(4.0)
    assert not cat.reachable and cat.cases_needed is None and cat.power_at_available < 0.8
    assert ("catastrophic_recall", None) in {(c.name, c.subject) for c in power.unreachable}
    # A judge that calls one catastrophe in ten falsely: the score bias is out of reach too,
    # its interval many points wide.
    noisy = _power(catastrophic_false_alarm=0.1, catastrophic_prevalence=0.2)
    bias = [c for c in noisy.conditions if c.name == "score_bias"]
    assert all(not c.reachable for c in bias)
    assert all(c.details["expected_half_width"] > 5 for c in bias)
    assert all(c.mc_error == pytest.approx(math.sqrt(c.power * (1 - c.power) / 500)) for c in bias)


def test_the_same_seed_gives_the_same_power():
    assert _power().as_dict() == _power().as_dict()


@pytest.mark.django_db
def test_plan_command_reports_every_condition_and_warns():
    data, models = dataset_with_responses(cases=40, models=2)
    names = ",".join(m.name for m in models)
    args = ("plan", "--dataset", data.name, "--models", names, "--half-width", "0.1",
            "--simulations", "200")  # fmt: skip
    out = io.StringIO()
    call_command("study", *args, "--format", "json", stdout=out)
    plan = json.loads(out.getvalue())
    power = plan["power"]
    assert power["cases"] == plan["cases"] and power["assumptions"]["simulations"] == 200
    assert [c["name"] for c in power["conditions"]] == [
        "agreement", "noninferiority", "catastrophic_recall", "score_bias", "score_bias",
    ]  # fmt: skip
    assert {c["subject"] for c in power["conditions"][3:]} == {m.name for m in models}
    unreachable = {u["name"]: u for u in power["unreachable"]}
    assert "practically unreachable" in unreachable["catastrophic_recall"]["warning"]
    table = io.StringIO()
    call_command("study", *args, stdout=table)
    assert "warning: catastrophic_recall is practically unreachable" in table.getvalue()
    assert "gold hits expected" in table.getvalue()
