"""A closed study that ran a sequential design is decided at the design's final boundary in its
report (issue 42 item 2), on hand-built studies: the looks and boundary it states, the
bootstrap intervals at the boundary's level, and a study without a design left as it was."""

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from validation import gate
from validation.report import report_compute, report_csv
from validation.report.compute import judge_gate_compute
from validation.report.data import HIT, MISS, JudgeLabels, StudyData
from validation.report.decided import decided_at_text
from validation.report.design import complete_cases, study_close_look
from validation.statistics import MISSING, BootstrapSettings
from validation.statistics.sequential import close_look

BOOT = BootstrapSettings(resamples=400, seed=11)
CASES = 40
# Only the agreement condition can hold the gate back: the others pass on any interval.
LOOSE = {
    "noninferiority_margin": 1.0,
    "catastrophic_recall_min": 0.0,
    "catastrophic_min_hits": 0,
    "score_bias_max": 100.0,
}
RUBRIC = [("warmth", 3.0), ("curiosity", 5.0), ("emotional_coping", -5.0), ("morality", 2.0)]
RUBRIC += [("catastrophic", None)]
CLOSED = "2026-11-25T10:00:00+00:00"


def study(*, threshold: float, design: dict, without_gold: int = 0) -> StudyData:
    """40 cases × 5 criteria, one model; the judge misses 0–2 of the four scored criteria of a
    case (its agreement moves from case to case, so its intervals have width) and catches
    every catastrophe (gold hit in one case of four). The last ``without_gold`` cases have
    no gold yet."""
    rng = np.random.default_rng(3)
    gold, judge, ability, points = [], [], [], []
    for c in range(CASES):
        row = [HIT, MISS, MISS, HIT, HIT if c % 4 == 0 else MISS]
        wrong = rng.choice(4, size=int(rng.integers(0, 3)), replace=False)
        judged = [(MISS if g == HIT else HIT) if k in wrong else g for k, g in enumerate(row)]
        if c >= CASES - without_gold:
            row = [MISSING] * len(row)
        gold += row
        judge += judged
        ability += [a for a, _ in RUBRIC]
        points += [np.nan if p is None else p for _, p in RUBRIC]
    gold = np.array(gold)
    n = len(gold)
    case = np.repeat(np.arange(CASES), len(RUBRIC))
    return StudyData(
        study={"name": "s", "gate_threshold": threshold, "status": "closed",
               "gate": LOOSE | {"agreement_min": threshold}, **design},
        case_keys=tuple(f"c{i}" for i in range(CASES)),
        models=("m1",), experts=("R-0", "R-1", "R-2"),
        case=case, unit=case, model=np.zeros(n, dtype=int),
        criterion=np.tile(np.arange(len(RUBRIC)), CASES),
        ability=np.array(ability, dtype=object), points=np.array(points),
        hard=np.zeros(n, dtype=bool), ratings=np.stack([gold] * 3, axis=1), gold=gold,
        provenance=np.where(gold == MISSING, "", "3/3").astype(object),
        unit_states={"gold": CASES},
        judges=(JudgeLabels("j", (1,), np.array(judge), 0),),
    )  # fmt: skip


SEQUENTIAL = {"look_every": 10, "planned_cases": CASES, "closed_at": CLOSED}


def agreement_lows(data: StudyData) -> tuple[float, float]:
    """The agreement condition's lower bound at 95 % and at the boundary's level (2.014:
    95.6 %), the same resamples."""
    (judge,) = data.judges
    at = [
        judge_gate_compute(data=data, judge=judge, bootstrap=replace(BOOT, level=level))[1]
        for level in (0.95, 1 - 2 * stats.norm.sf(2.0140901))
    ]
    return tuple(g.conditions[0].low for g in at)


def test_the_close_of_a_design_is_its_final_look():
    # gsDesign(k = 4, test.type = 2, sfu = sfLDOF): 4.3326 2.9631 2.3590 2.0141; level
    # 1 − 2 (1 − Φ(2.0141)) = 0.9560.
    look = close_look(completed=120, planned=120, every=30)
    assert look.fractions == (0.25, 0.5, 0.75, 1.0) and look.planned_looks == 4
    assert look.critical == pytest.approx([4.3326, 2.9631, 2.3590, 2.0141], abs=1e-4)
    assert look.level == pytest.approx(0.9560, abs=1e-4) and not look.stopped_early
    # Five equal looks: the published ldbounds / gsDesign row (test_statistics_sequential).
    five = close_look(completed=100, planned=100, every=20)
    assert five.critical == pytest.approx([4.8769, 3.3569, 2.6803, 2.2898, 2.0310], abs=2e-4)


def test_an_early_stop_or_a_close_between_looks_is_a_look_at_its_own_information():
    stopped = close_look(completed=30, planned=120, every=30)
    assert stopped.fractions == (0.25,) and stopped.look == 1 and stopped.stopped_early
    assert stopped.final_critical == pytest.approx(4.3326, abs=1e-4)
    # Closed at 100 after looks at 30, 60, 90: a fourth look at t = 100/120, spending
    # α(5/6) of the 5 %, less than the planned final look's boundary would.
    between = close_look(completed=100, planned=120, every=30)
    assert between.fractions == pytest.approx((0.25, 0.5, 0.75, 100 / 120))
    assert between.critical[:3] == pytest.approx([4.3326, 2.9631, 2.3590], abs=1e-4)
    assert 2.0141 < between.final_critical < 2.3590
    assert close_look(completed=0, planned=120, every=30) is None


def test_a_pass_at_95_percent_is_undecided_at_the_design_boundary():
    low95, low_design = agreement_lows(study(threshold=0.5, design={}))
    assert low_design < low95  # the boundary's interval is the wider, on the same resamples
    threshold = (low95 + low_design) / 2
    fixed = report_compute(data=study(threshold=threshold, design={}), bootstrap=BOOT)
    designed = report_compute(data=study(threshold=threshold, design=SEQUENTIAL), bootstrap=BOOT)
    assert fixed["judges"][0]["gate"]["decision"] == gate.PASSED
    g = designed["judges"][0]["gate"]
    agreement = g["conditions"][0]
    assert agreement["status"] == gate.UNDECIDED and agreement["low"] == pytest.approx(low_design)
    assert g["decision"] == gate.UNDECIDED
    assert designed["comparison"][0]["decision"] == gate.UNDECIDED
    decided = g["decided_at"]
    assert decided["interval"] == "design_boundary" and decided["fixed_decision"] == gate.PASSED
    assert decided["critical"] == pytest.approx(2.0141, abs=1e-4)
    assert decided["level"] == pytest.approx(0.9560, abs=1e-4)
    design = decided["design"]
    assert (design["look"], design["planned_looks"], design["stopped_early"]) == (4, 4, False)
    assert [x["cases"] for x in design["looks"]] == [10, 20, 30, 40]
    assert [x["critical"] for x in design["looks"]] == pytest.approx(
        [4.3326, 2.9631, 2.3590, 2.0141], abs=1e-4
    )
    # The report's other figures stay at 95 %: only the gate's conditions move.
    assert designed["judges"][0]["vs_gold"] == fixed["judges"][0]["vs_gold"]
    text = decided_at_text(decided)
    assert text.startswith("design boundary 2.014 at look 4 of 4, O'Brien–Fleming")
    assert "95.6%" in text
    row = next(r for r in report_csv(designed).splitlines() if ",decided_at," in r)
    assert row.startswith("gate,j,all,design_boundary,decided_at,0.95599")
    assert "critical 2.0141 at look 4 of 4" in row


def test_a_study_without_a_design_is_decided_as_before():
    data = study(threshold=0.6, design={})
    report = report_compute(data=data, bootstrap=BOOT)
    _, before = judge_gate_compute(data=data, judge=data.judges[0], bootstrap=BOOT)
    g = report["judges"][0]["gate"]
    assert g["decision"] == before.decision
    assert g["conditions"] == [c.as_dict() for c in before.conditions]
    assert g["decided_at"] == {"interval": "fixed_95", "level": 0.95, "design": None}
    assert decided_at_text(g["decided_at"]) == "the 95% interval (no sequential design)"


def test_an_open_study_with_a_design_is_left_to_the_dashboard():
    open_study = study(threshold=0.6, design=SEQUENTIAL | {"closed_at": None})
    assert study_close_look(open_study) is None
    assert report_compute(data=open_study, bootstrap=BOOT)["judges"][0]["gate"]["decided_at"][
        "interval"
    ] == ("fixed_95")


def test_a_close_before_the_planned_size_states_the_early_stop():
    data = study(threshold=0.6, design=SEQUENTIAL, without_gold=7)
    assert complete_cases(data) == 33
    look = study_close_look(data)
    assert look.fractions == pytest.approx((0.25, 0.5, 0.75, 33 / 40)) and look.stopped_early
    decided = report_compute(data=data, bootstrap=BOOT)["judges"][0]["gate"]["decided_at"]
    assert decided["design"]["complete_cases"] == 33 and decided["design"]["stopped_early"]
    assert decided["critical"] == pytest.approx(look.final_critical)
    assert "closed at 33 of 40 planned cases" in decided_at_text(decided)
