"""A look of the sequential monitoring on hand-built studies (pure: no database): the study
restricted to the look's cases, and every gate condition of every judge decided at the look's
boundary, so that a condition other than agreement keeps the study from stopping."""

from dataclasses import replace

import numpy as np
import pytest

from tests.builders.study_data import study
from validation.dashboard.monitoring import look_conditions
from validation.report import report_compute
from validation.report.data import HIT, MISS, study_data_for_cases
from validation.statistics import BootstrapSettings
from validation.statistics.sequential import study_monitor

BOOT = BootstrapSettings(resamples=400, seed=3)
H, M = HIT, MISS
CASES = 20


def biased(*, score_bias_max: float = 5.0, catastrophic_recall_min: float = 0.8):
    """Warmth hit, coping missed; a catastrophe in every odd case (10 gold hits); curiosity hit
    in every fourth case, where the judge misses it (a case score 33 points too low), else
    missed. The third expert dissents on warmth and coping everywhere."""
    gold = [[[H, H if c % 4 == 0 else M, M, H if c % 2 else M]] for c in range(CASES)]
    judge = [[[H, M, M, H if c % 2 else M]] for c in range(CASES)]
    flat = np.array(gold).ravel()
    dissent = flat.copy()
    dissent[0::4], dissent[2::4] = M, H
    data = study(
        gold_rows=gold,
        judges={"judge": np.array(judge).ravel()},
        cases=CASES,
        ratings=np.stack([flat, flat, dissent], axis=1),
        hard=[False] * CASES,
    )
    gate = {"score_bias_max": score_bias_max, "catastrophic_recall_min": catastrophic_recall_min}
    return replace(data, study=data.study | {"gate": gate})


def test_the_study_restricted_to_the_looks_cases():
    data = biased()
    look = study_data_for_cases(data=data, cases=["c3", "c1"])
    look.check()
    assert look.case_keys == ("c1", "c3") and look.n_items == 8
    assert look.case.tolist() == [0] * 4 + [1] * 4
    assert look.criterion.tolist() == [10, 11, 12, 13, 30, 31, 32, 33]
    assert (look.gold == data.gold[np.isin(data.case, [1, 3])]).all()
    assert (look.judges[0].codes == data.judges[0].codes[np.isin(data.case, [1, 3])]).all()
    # The look of every case is the study itself: the same report.
    whole = study_data_for_cases(data=data, cases=list(data.case_keys))
    assert (
        report_compute(data=whole, bootstrap=BOOT)["judges"]
        == report_compute(data=data, bootstrap=BOOT)["judges"]
    )


def monitor(data, completed: int, every: int = 20):
    cases = [f"c{i}" for i in range(completed)]
    conditions = look_conditions(data=data, cases=cases, bootstrap=BOOT)
    m = study_monitor(
        conditions=[c.sequential for c in conditions], completed=completed, planned=40, every=every
    )
    return {
        (c.condition.name, c.condition.subject): s
        for c, s in zip(conditions, m.conditions, strict=True)
    }, m


def test_score_bias_keeps_the_study_from_stopping_until_the_gate_allows_it():
    statuses, m = monitor(biased(), CASES)
    status = {key[0]: s.status for key, s in statuses.items()}
    assert status == {
        "agreement": "passed",
        "noninferiority": "passed",
        # 10 of 10 caught: [0.69, 1] (Clopper–Pearson), never [1, 1], straddles 0.8.
        "catastrophic_recall": "undecided",
        "score_bias": "undecided",
    }
    bias = statuses["score_bias", "m1"]
    # Judge − gold: −100/3 on 5 of 20 cases; its interval at the boundary straddles −5.
    assert bias.value == pytest.approx(-100 / 3 * 5 / 20)
    assert bias.low < -5 < bias.high
    assert not m.decided
    # A looser gate (score bias within ±50 points, catastrophic recall at least 0.3) decides
    # it: every condition is decided.
    statuses, m = monitor(biased(score_bias_max=50, catastrophic_recall_min=0.3), CASES)
    assert statuses["score_bias", "m1"].status == "passed" and m.decided


def test_too_few_catastrophic_hits_stay_undecided_at_any_boundary():
    # 4 cases: 2 gold catastrophic hits of the 10 the gate needs, recall 1.0 on them.
    statuses, m = monitor(biased(), 4, every=4)
    catastrophic = statuses["catastrophic_recall", None]
    assert (catastrophic.status, catastrophic.value, catastrophic.low) == (
        "not_enough_data",
        None,
        None,
    )
    assert not m.decided
