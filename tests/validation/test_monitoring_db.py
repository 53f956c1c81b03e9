"""Group-sequential monitoring of a real study: the look, its boundary, the report's agreement
condition at it, what stopping saves, and stopping early through the close service."""

from decimal import Decimal

import pytest
from scipy import stats

from annotation import services as annotation_services
from annotation.models import Submission
from benchmark.models import AuditEvent, RubricItem, Verdict
from tests.annotation.factories import ExpertFactory, UserFactory
from tests.annotation.helpers import all_labels
from tests.validation.factories import open_study
from validation.dashboard import monitoring
from validation.dashboard.monitoring import completed_cases, study_monitoring
from validation.report import report_compute
from validation.report.selectors import study_report_data
from validation.selectors import study_get
from validation.statistics import BootstrapSettings
from validation.statistics.sequential import boundaries_compute

pytestmark = pytest.mark.django_db
BOOT = BootstrapSettings(resamples=200)


def monitored_study(*, cases: int = 12, look_every: int | None = 4):
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=cases, experts=experts, judge=True, look_every=look_every)
    annotation_services.pay_rate_set(
        pool=study.pool, tier="expert", amount=Decimal("10.00"), currency="CNY"
    )
    # The judge disagrees with the (all-hit) experts on the first criterion of every third
    # case, so agreement varies between cases.
    for run in study.judge_runs.all():
        for response in run.model.responses.all():
            for item in RubricItem.objects.filter(case=response.case):
                miss = item.position == 0 and response.case.position % 3 == 0
                state = Verdict.State.NOT_MET if miss else Verdict.State.MET
                Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)
    return study, experts


def rate_until(study, experts, complete: int) -> None:
    """The three experts take turns rating (all labels "hit") until ``complete`` cases are."""
    while len(completed_cases(study=study)) < complete:
        for expert in experts:
            assignment = annotation_services.assignment_claim_next(
                user=expert.user, pool=study.pool
            )
            if assignment is not None:
                labels = all_labels(assignment)
                annotation_services.assignment_submit(assignment=assignment, labels=labels)


def test_look_boundary_condition_and_saving():
    study, experts = monitored_study()
    assert study_monitoring(study=study).monitor.look == 0
    rate_until(study, experts, 9)
    completed = len(completed_cases(study=study))
    assert 9 <= completed < 12
    monitoring = study_monitoring(study=study, bootstrap=BOOT)
    m = monitoring.monitor
    assert (m.planned, m.completed, m.look, m.next_look_at) == (12, completed, 2, 12)
    assert m.critical == pytest.approx(boundaries_compute(fractions=[4 / 12, 8 / 12])[1])
    (condition,) = m.conditions
    assert condition.low is not None and condition.low < condition.high
    # Every rating paid 10.00; the ratings still to come are those not yet submitted.
    to_come = 12 * 3 - Submission.objects.filter(unit__pool=study.pool).count()
    assert monitoring.saving.units == 12 - completed and monitoring.saving.ratings == to_come
    assert monitoring.saving.pay == (("CNY", Decimal(10 * to_come).quantize(Decimal("0.01"))),)
    assert monitoring.stoppable


def test_a_look_is_computed_once_until_the_study_changes(monkeypatch):
    study, experts = monitored_study()
    rate_until(study, experts, 4)
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


def test_the_final_look_uses_the_reports_agreement_with_the_gold():
    study, experts = monitored_study()
    rate_until(study, experts, 12)
    m = study_monitoring(study=study, bootstrap=BOOT).monitor
    assert m.look == 3 and m.fraction == 1.0 and m.next_look_at is None
    report = report_compute(data=study_report_data(study=study), bootstrap=BOOT)
    agreement = report["judges"][0]["vs_gold"]["agreement"]
    (condition,) = m.conditions
    se = (agreement["high"] - agreement["low"]) / (2 * 1.959964)
    assert condition.value == agreement["value"]
    # The look's boundary, carried to Student's t with 12 cases − 1 degrees of freedom.
    critical = stats.t.isf(stats.norm.sf(m.critical), 11)
    low, high = agreement["value"] - critical * se, agreement["value"] + critical * se
    assert condition.low == pytest.approx(max(0.0, low), rel=1e-5)
    assert condition.high == pytest.approx(min(1.0, high), rel=1e-5)


def test_a_study_without_looks_is_not_monitored(client):
    study, _ = monitored_study(look_every=None)
    assert study_monitoring(study=study) is None
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(f"/admin/dashboard/studies/{study.name}/").content.decode()
    assert 'id="monitoring"' not in page and 'id="progress"' in page


def test_dashboard_shows_the_look_and_stops_early_through_the_close(client):
    study, experts = monitored_study()
    rate_until(study, experts, 9)
    short = 12 - len(completed_cases(study=study))
    admin = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(admin)
    url = f"/admin/dashboard/studies/{study.name}/"
    page = client.get(url).content.decode()
    assert 'id="monitoring"' in page and "current boundary (critical value)" in page
    assert 'id="stop-early"' in page and " CNY</span>" in page
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
