"""A real closed study that looked at its gate every 8 cases: the report, the badge, the command
line's leaderboard and the dashboard's final look all decide at the design's final boundary
(issue 42 item 2), so a threshold a plain 95 % interval would pass is undecided in each."""

from dataclasses import replace

import pytest

from tests.builders.monitoring import monitored_study, rate_until
from validation import gate, services
from validation.dashboard.monitoring import study_monitoring
from validation.report import report_compute
from validation.report.compute import judge_gate_compute
from validation.report.design import study_close_look
from validation.report.selectors import study_items_data, study_report_data
from validation.selectors.badge import judge_badge_for_study, leaderboard_gate
from validation.statistics import BootstrapSettings

pytestmark = pytest.mark.django_db
BOOT = BootstrapSettings(resamples=200)


def test_a_closed_sequential_study_is_decided_at_its_final_boundary_everywhere():
    study, experts = monitored_study()
    rate_until(study, experts, 24)
    services.study_close(study=study)
    data = study_items_data(study=study)
    look = study_close_look(data)
    # Looks at 8, 16 and 24 of 24 cases (t = 1/3, 2/3, 1): the O'Brien–Fleming boundaries.
    assert [round(t * 24) for t in look.fractions] == [8, 16, 24] and not look.stopped_early
    assert look.critical == pytest.approx([3.7103, 2.5114, 1.9930], abs=1e-4)
    judge = next(j for j in data.judges if j.name == "judge-true")
    lows = [
        judge_gate_compute(data=data, judge=judge, bootstrap=replace(BOOT, level=level))[1]
        .conditions[0]
        .low
        for level in (0.95, look.level)
    ]
    assert lows[1] < lows[0]
    study.gate_threshold = sum(lows) / 2  # passed at 95 %, not at the boundary
    study.save(update_fields=["gate_threshold"])

    report = report_compute(data=study_report_data(study=study), bootstrap=BOOT)
    j = next(j for j in report["judges"] if j["judge"] == "judge-true")
    assert j["gate"]["conditions"][0]["status"] == gate.UNDECIDED
    assert j["gate"]["decision"] != gate.PASSED
    decided = j["gate"]["decided_at"]
    assert decided["interval"] == "design_boundary" and decided["fixed_decision"] == gate.PASSED
    assert decided["design"]["look"] == 3 and decided["design"]["planned_cases"] == 24

    badge = judge_badge_for_study(study=study, judge="judge-true", bootstrap=BOOT)
    assert badge.decision == j["gate"]["decision"]
    assert list(badge.conditions) == j["gate"]["conditions"]
    assert badge.decided_at == decided
    board = leaderboard_gate(dataset=study.dataset, bootstrap=BOOT)
    row = next(r for r in board["judges"] if r["judge"] == "judge-true")
    assert (row["decision"], row["decided_at"]) == (j["gate"]["decision"], decided)

    # The dashboard's final look (value ± c · SE at the same boundary) does not pass it either.
    monitoring = study_monitoring(study=study, bootstrap=BOOT)
    assert monitoring.monitor.critical == pytest.approx(look.final_critical)
    first = next(r for r in monitoring.rows if r.judge == "judge-true")
    assert first.condition.name == gate.AGREEMENT and first.look.status == gate.UNDECIDED
