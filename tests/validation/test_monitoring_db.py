"""Group-sequential monitoring of a real study: the look, its boundary, every gate condition of
the judge at it (the report's figures on the look's cases), what stopping saves, and stopping
early through the close service only once every condition is decided."""

from decimal import Decimal

import pytest
from scipy import stats

from annotation.models import Submission
from benchmark.models import AuditEvent
from tests.builders.accounts import UserFactory
from tests.builders.monitoring import monitored_study, rate_until
from validation.dashboard import monitoring
from validation.dashboard.monitoring import completed_cases, study_monitoring
from validation.report import report_compute
from validation.report.data import study_data_for_cases
from validation.report.selectors import study_report_data
from validation.selectors import study_get
from validation.services import StudyError, study_stop_early
from validation.statistics import BootstrapSettings
from validation.statistics.sequential import boundaries_compute

pytestmark = pytest.mark.django_db
BOOT = BootstrapSettings(resamples=200)
CONDITIONS = ["agreement", "noninferiority", "catastrophic_recall", "score_bias", "score_bias"]


def unfinished(study) -> int:
    return study.units.exclude(state__in=("gold", "adjudicated", "awaiting", "dropped")).count()


def test_look_boundary_conditions_and_saving():
    study, experts = monitored_study()
    assert study_monitoring(study=study).monitor.look == 0
    rate_until(study, experts, 17)
    completed = len(completed_cases(study=study))
    assert 17 <= completed < 24
    monitoring = study_monitoring(study=study, bootstrap=BOOT)
    m = monitoring.monitor
    assert (m.planned, m.completed, m.look, m.next_look_at) == (24, completed, 2, 24)
    assert m.critical == pytest.approx(boundaries_compute(fractions=[8 / 24, 16 / 24])[1])
    # Every gate condition of each judge, score bias once per model, each decided: one judge
    # passed, the other failed; the answer is known for both, so the study may stop.
    looks = {(r.judge, r.condition.name, r.condition.subject): r.look for r in monitoring.rows}
    assert [r.condition.name for r in monitoring.rows] == CONDITIONS * 2
    assert {subject for _, name, subject in looks if name == "score_bias"} == set(
        study_report_data(study=study).models
    )
    status = {key: look.status for key, look in looks.items()}
    assert {s for (judge, *_), s in status.items() if judge == "judge-true"} == {"passed"}
    flip = {name: s for (judge, name, _), s in status.items() if judge == "judge-flip"}
    assert flip == {
        "agreement": "failed",
        "noninferiority": "failed",
        "catastrophic_recall": "passed",
        "score_bias": "passed",
    }
    assert m.decided and monitoring.stoppable
    # Every rating paid 10.00; the ratings still to come are those not yet submitted.
    to_come = 48 * 3 - Submission.objects.filter(unit__pool=study.pool).count()
    assert monitoring.saving.units == unfinished(study) > 0
    assert monitoring.saving.ratings == to_come
    assert monitoring.saving.pay == (("CNY", Decimal(10 * to_come).quantize(Decimal("0.01"))),)


def test_a_condition_other_than_agreement_keeps_the_study_from_stopping():
    study, experts = monitored_study()
    rate_until(study, experts, 8)
    # Look 1 (8 cases): the first boundary (3.7), carried to Student's t on 7 degrees of
    # freedom, leaves the catastrophic recall undecided (or held: 8 cases may hold fewer than
    # the 10 gold hits the gate needs); it no longer passes on an SE of 0.
    monitoring = study_monitoring(study=study, bootstrap=BOOT)
    status = {(r.judge, r.condition.name): r.look.status for r in monitoring.rows}
    assert monitoring.monitor.look == 1
    assert status["judge-true", "catastrophic_recall"] in ("undecided", "not_enough_data")
    assert not monitoring.monitor.decided and not monitoring.stoppable
    with pytest.raises(StudyError, match="not every gate condition is decided at look 1"):
        study_stop_early(study=study, actor=None)
    # Look 2 decides it: the study may stop. A gate needing more hits than there are is a new
    # key of the look, and takes that back: catastrophic recall alone keeps it from stopping.
    rate_until(study, experts, 16)
    assert study_monitoring(study=study, bootstrap=BOOT).stoppable
    study.gate_catastrophic_min_hits = 50
    study.save(update_fields=["gate_catastrophic_min_hits"])
    monitoring = study_monitoring(study=study, bootstrap=BOOT)
    held = [r.look.status for r in monitoring.rows if r.condition.name == "catastrophic_recall"]
    others = {r.look.status for r in monitoring.rows if r.condition.name != "catastrophic_recall"}
    assert held == ["not_enough_data"] * 2 and others == {"passed", "failed"}
    assert not monitoring.stoppable
    assert study_get(name=study.name).pool.status == "open"


def test_a_look_is_computed_once_until_the_study_changes(monkeypatch):
    study, experts = monitored_study()
    rate_until(study, experts, 8)
    first = study_monitoring(study=study, bootstrap=BOOT).monitor
    calls = []
    monkeypatch.setattr(
        monitoring, "study_report_data", lambda **kw: calls.append(kw) or study_report_data(**kw)
    )
    assert study_monitoring(study=study, bootstrap=BOOT).monitor == first
    assert calls == []
    # One more case completes: new gold, so the look is computed again.
    rate_until(study, experts, len(completed_cases(study=study)) + 1)
    study_monitoring(study=study, bootstrap=BOOT)
    assert len(calls) == 1
    # Any gate setting, not only the agreement threshold, is part of the look's key.
    study.gate_score_bias = 1.0
    study.save(update_fields=["gate_score_bias"])
    study_monitoring(study=study, bootstrap=BOOT)
    assert len(calls) == 2


def test_the_final_look_uses_the_reports_gate_on_the_looks_cases():
    study, experts = monitored_study()
    rate_until(study, experts, 24)
    monitoring = study_monitoring(study=study, bootstrap=BOOT)
    m = monitoring.monitor
    assert m.look == 3 and m.fraction == 1.0 and m.next_look_at is None
    data = study_report_data(study=study)
    report = report_compute(data=data, bootstrap=BOOT)
    # All 24 cases are the look's: its gate is the report's, condition by condition.
    assert study_data_for_cases(data=data, cases=list(data.case_keys)).n_items == data.n_items
    gates = [c for j in report["judges"] for c in j["gate"]["conditions"]]
    assert [r.condition.as_dict() for r in monitoring.rows] == gates
    agreement = report["judges"][0]["vs_gold"]["agreement"]
    assert monitoring.rows[0].look.value == agreement["value"]
    # The look's boundary on the reported interval (SE from its wider side), carried to
    # Student's t (24 cases − 1 df).
    noninferiority = monitoring.rows[1]
    value, low, high = (getattr(noninferiority.condition, k) for k in ("value", "low", "high"))
    se = max(value - low, high - value) / stats.norm.isf(0.025)
    critical = stats.t.isf(stats.norm.sf(m.critical), 23)
    assert noninferiority.look.low == pytest.approx(max(-1.0, value - critical * se), abs=1e-9)
    assert noninferiority.look.high == pytest.approx(min(1.0, value + critical * se), abs=1e-9)


def test_a_study_without_looks_is_not_monitored(client):
    study, _ = monitored_study(look_every=None)
    assert study_monitoring(study=study) is None
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(f"/admin/dashboard/studies/{study.name}/").content.decode()
    assert 'id="monitoring"' not in page and 'id="progress"' in page


def test_dashboard_shows_the_look_and_stops_early_through_the_close(client):
    study, experts = monitored_study()
    rate_until(study, experts, 17)
    short = unfinished(study)
    admin = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(admin)
    url = f"/admin/dashboard/studies/{study.name}/"
    page = client.get(url).content.decode()
    assert 'id="monitoring"' in page and "current boundary (critical value)" in page
    assert 'id="stop-early"' in page and " CNY</span>" in page
    assert page.count('data-status="passed"') == 2 * len(CONDITIONS) - 2
    # Not confirmed: nothing happens.
    client.post(url + "stop-early/", {})
    assert study_get(name=study.name).pool.status == "open"
    response = client.post(url + "stop-early/", {"confirm": "yes"})
    assert response.status_code == 302
    study = study_get(name=study.name)
    assert study.pool.status == "closed"
    assert study.units.filter(state="dropped").count() == short
    audit = AuditEvent.objects.get(action="study.close", object_id=str(study.pk))
    assert audit.data["reason"] == "stopped early at look 2" and audit.actor == admin
    assert 'id="stop-early"' not in client.get(url).content.decode()
