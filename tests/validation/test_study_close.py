"""Closing a study with units still short of three ratings: the counts first, a confirmation,
and the admin's choice of what happens to partly rated and never rated units."""

import csv
import io
import json
import sys
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from annotation import services as annotation_services
from annotation.selectors import adjudication as queue
from annotation.services.routing import unit_route_to_expert
from benchmark.models import AuditEvent, RubricItem, Verdict
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from validation import selectors, services
from validation.dashboard import selectors as dashboard_selectors
from validation.models import Study, StudyUnit
from validation.report import report_compute, report_render
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = pytest.mark.django_db
BOOT = BootstrapSettings(resamples=100, seed=1)


def rate(study_unit: StudyUnit, expert, *, hit: bool = True) -> None:
    assignment = unit_route_to_expert(unit=study_unit.unit, expert=expert, actor=None)
    annotation_services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment, hit=hit)
    )


@pytest.fixture
def short_study():
    """Five units: one rated by three experts, one by one, one by two, two by nobody; a
    judge's verdicts on all of them; a senior expert in the study."""
    raters = ExpertFactory.create_batch(3)
    senior = ExpertFactory(tier="senior")
    study = open_study(cases=5, experts=[*raters, senior], judge=True, name="short")
    run = study.judge_runs.get()
    for study_unit in study.units.select_related("unit__response"):
        response = study_unit.unit.response
        for item in RubricItem.objects.filter(case=response.case):
            Verdict.objects.create(run=run, response=response, rubric_item=item, state="met")
    full, one, two, *never = study.units.order_by("pk")
    for expert in raters:
        rate(full, expert)
    rate(one, raters[0])
    rate(two, raters[0])
    rate(two, raters[1], hit=False)
    return study, senior, {"full": full, "one": one, "two": two, "never": never}


def states(study: Study) -> dict[int, tuple[str, str]]:
    return {u.pk: (u.state, u.drop_reason) for u in study.units.all()}


def waiting_for(senior, study) -> int:
    study.pool.refresh_from_db()
    return queue.adjudication_queue(pool=study.pool, expert=senior).count()


# ---- the counts ------------------------------------------------------------------------------


def test_the_counts_say_complete_partly_rated_and_never_rated(short_study):
    study, _senior, _units = short_study
    completion = selectors.study_completion(study=study)
    assert (completion.complete, completion.partly_rated, completion.never_rated) == (1, 2, 2)
    assert completion.units == 5 and completion.dropped == 0


# ---- the service -----------------------------------------------------------------------------


def test_by_default_partly_rated_units_go_to_a_senior_and_never_rated_ones_are_dropped(
    short_study,
):
    # A never rated unit sent to a senior would take one senior's labels as its gold.
    study, senior, units = short_study
    result = services.study_close(study=study)
    assert result["complete"] == 1 and result["partly_rated"] == 2 and result["never_rated"] == 2
    assert result["incomplete"] == 2 and result["dropped"] == 2
    assert waiting_for(senior, study) == 2
    assert all(states(study)[u.pk] == ("dropped", "never_rated") for u in units["never"])


def test_every_short_unit_can_still_go_to_a_senior(short_study):
    study, senior, _units = short_study
    result = services.study_close(study=study, unrated="senior")
    assert result["incomplete"] == 4 and result["dropped"] == 0
    assert waiting_for(senior, study) == 4


def test_the_counts_say_what_each_choice_gives_the_seniors(short_study):
    study, _senior, units = short_study
    completion = selectors.study_completion(study=study)
    per_unit = {u.pk: u.case.rubric.count() for u in study.units.select_related("case")}
    partly = per_unit[units["one"].pk] + per_unit[units["two"].pk]
    never = sum(per_unit[u.pk] for u in units["never"])
    assert completion.senior_cost(partial="senior", unrated="drop") == (2, partly)
    assert completion.senior_cost(partial="senior", unrated="senior") == (4, partly + never)
    assert completion.senior_cost(partial="drop", unrated="drop") == (0, 0)


def test_never_rated_units_can_be_dropped_and_partly_rated_ones_still_go_to_a_senior(short_study):
    study, senior, units = short_study
    result = services.study_close(study=study, partial="senior", unrated="drop")
    # The fully rated unit got its gold with its last rating, so the close writes none.
    assert result["incomplete"] == 2 and result["dropped"] == 2 and result["gold"] == 0
    found = states(study)
    assert found[units["full"].pk] == ("gold", "")
    assert found[units["one"].pk] == ("incomplete", "")
    for unit in units["never"]:
        assert found[unit.pk] == ("dropped", "never_rated")
    assert waiting_for(senior, study) == 2  # only the partly rated units
    event = AuditEvent.objects.get(action="study.close")
    assert event.data["dropped"] == 2 and event.data["unrated"] == "drop"
    assert sorted(event.data["dropped_units"]) == sorted(u.unit_id for u in units["never"])


def test_partly_rated_units_can_be_dropped_too(short_study):
    study, senior, units = short_study
    result = services.study_close(study=study, partial="drop", unrated="senior")
    assert result["dropped"] == 2 and result["incomplete"] == 2
    assert states(study)[units["two"].pk] == ("dropped", "partly_rated")
    assert waiting_for(senior, study) == 2  # the never rated units


def test_an_unknown_choice_is_refused_and_nothing_changes(short_study):
    study, _senior, _units = short_study
    with pytest.raises(services.StudyError, match="--unrated must be one of senior, drop"):
        services.study_close(study=study, unrated="ignore")
    study.pool.refresh_from_db()
    assert study.pool.status == "open" and study.closed_at is None


def test_extending_keeps_the_study_open_and_moves_its_date(short_study):
    study, _senior, _units = short_study
    later = timezone.localdate() + timedelta(days=14)
    services.study_extend(study=study, due_date=later)
    study.refresh_from_db()
    study.pool.refresh_from_db()
    assert study.due_date == later and study.pool.status == "open"
    assert AuditEvent.objects.filter(action="study.due_date").count() == 1
    with pytest.raises(services.StudyError, match="after today"):
        services.study_extend(study=study, due_date=timezone.localdate())


# ---- the report ------------------------------------------------------------------------------


def test_the_report_counts_and_lists_dropped_units_and_not_as_missing_coverage(short_study):
    study, _senior, units = short_study
    before = report_compute(data=study_report_data(study=study), bootstrap=BOOT)
    services.study_close(study=study, unrated="drop")
    report = report_compute(data=study_report_data(study=study), bootstrap=BOOT)
    criteria = 4  # per case (tests.builders.datasets.case_with_rubric)
    assert report["counts"]["units"] == 3 and report["counts"]["units_dropped"] == 2
    assert report["counts"]["items"] == 3 * criteria
    assert report["counts"]["units_incomplete"] == 2  # the partly rated ones, not the dropped
    dropped = report["dropped"]
    assert dropped["units"] == 2 and dropped["by_reason"] == {"never_rated": 2}
    listed = {(d["case"], d["reason"]) for d in dropped["list"]}
    assert listed == {(u.case.question_id, "never_rated") for u in units["never"]}
    judge = report["judges"][0]
    assert judge["items_judged"] == 3 * criteria  # the dropped units' verdicts are not counted
    assert before["judges"][0]["items_judged"] == 5 * criteria
    text = report_render(report, fmt="html")
    assert "2 units were dropped from the sample" in text and "never rated when the study" in text
    rows = list(csv.reader(io.StringIO(report_render(report, fmt="csv"))))
    assert ["dropped", "", "", "", "units", "2"] == rows[[r[0] for r in rows].index("dropped")][:6]
    assert any(r[0] == "dropped_unit" and r[4] == "reason" for r in rows)
    assert json.loads(report_render(report, fmt="json"))["dropped"]["units"] == 2


def test_the_dashboard_shows_dropped_units_in_their_own_bucket(short_study):
    study, _senior, _units = short_study
    services.study_close(study=study, unrated="drop")
    (progress,) = dashboard_selectors.studies_progress(studies=[Study.objects.get(pk=study.pk)])
    assert progress.buckets["dropped"] == 2 and progress.units == 5
    admin_client = Client()
    admin_client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert admin_client.get("/admin/dashboard/studies/short/").status_code == 200


# ---- the command -----------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_without_a_terminal_and_without_yes_nothing_closes(short_study, monkeypatch):
    study, _senior, _units = short_study
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # piped: never read as a yes
    with pytest.raises(CommandError) as refused:
        call_command("study", "close", "short", "--unrated", "drop")
    message = str(refused.value)
    assert "\n" not in message and "--yes" in message
    assert "1 complete, 2 partly rated, 2 never rated" in message
    study.pool.refresh_from_db()
    assert study.pool.status == "open" and not AuditEvent.objects.filter(action="study.close")


def test_on_a_terminal_the_counts_come_first_and_only_yes_closes(short_study, monkeypatch):
    study, _senior, _units = short_study
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    with pytest.raises(CommandError, match="not closed"):
        call_command("study", "close", "short", "--unrated", "drop", stdout=out)
    shown = out.getvalue()
    assert "5 units: 1 complete, 2 partly rated, 2 never rated" in shown
    assert "2 partly rated units go to a senior expert" in shown
    assert "2 never rated units are dropped from the sample" in shown
    assert "the seniors get 2 units, up to " in shown
    study.pool.refresh_from_db()
    assert study.pool.status == "open"
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    out = io.StringIO()
    call_command("study", "close", "short", "--unrated", "drop", stdout=out)
    assert "study short closed" in out.getvalue() and "2 dropped" in out.getvalue()
    study.pool.refresh_from_db()
    assert study.pool.status == "closed"


def test_yes_closes_without_asking(short_study, monkeypatch):
    study, senior, _units = short_study
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    out = io.StringIO()
    call_command("study", "close", "short", "--yes", stdout=out)
    assert "2 dropped from the sample; 2 units wait for a senior expert" in out.getvalue()
    assert waiting_for(senior, study) == 2
    # Closed already: said before anything is asked.
    with pytest.raises(CommandError, match="study short is closed: only an open study closes"):
        call_command("study", "close", "short")


def test_extend_to_leaves_the_study_open_with_a_later_date(short_study):
    study, _senior, _units = short_study
    later = (timezone.localdate() + timedelta(days=30)).isoformat()
    out = io.StringIO()
    call_command("study", "close", "short", "--extend-to", later, stdout=out)
    assert f"left open, due {later}" in out.getvalue()
    study.refresh_from_db()
    assert study.pool.status == "open" and study.due_date.isoformat() == later
    with pytest.raises(CommandError, match="--extend-to keeps the study open"):
        call_command("study", "close", "short", "--extend-to", later, "--unrated", "drop")
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        call_command("study", "close", "short", "--extend-to", "soon")


# ---- the admin's action ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "dropped", "to_senior"),
    [("close_studies", 0, 4), ("close_studies_dropping_unrated", 2, 2)],
)
def test_the_admin_actions_close_through_the_service_and_say_the_counts(
    short_study, action, dropped, to_senior
):
    study, senior, _units = short_study
    admin_client = Client()
    admin_client.force_login(UserFactory(is_staff=True, is_superuser=True))
    response = admin_client.post(
        "/admin/validation/study/",
        {"action": action, "_selected_action": [study.pk]},
        follow=True,
    )
    page = response.content.decode()
    assert "hort closed: 1 complete, 2 partly rated, 2 never rated units" in page  # capfirst
    assert f"{to_senior} went to a senior expert, {dropped} dropped from the sample" in page
    assert waiting_for(senior, study) == to_senior
    assert AuditEvent.objects.get(action="study.close").actor is not None
