"""Active time on task (issue 15, item 5): checked, stored with the draft and the submission,
carried back by the claim, optional for API clients, in the payroll export."""

import csv
import io
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from annotation import services
from annotation.active_time import MAX_ACTIVE_SECONDS, InvalidActiveSeconds, active_seconds_parse
from annotation.models import Assignment, PayEntry, Submission
from annotation.selectors.time_on_task import active_seconds_by_expert
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study

BAD = [-1, MAX_ACTIVE_SECONDS + 1, True, 1.5, 12.0, "12", [3], {"s": 3}]


@pytest.mark.parametrize("value", [None, 0, 1, 754, MAX_ACTIVE_SECONDS])
def test_a_whole_number_of_seconds_up_to_a_day_is_taken(value):
    assert active_seconds_parse(value) == value


@pytest.mark.parametrize("value", BAD)
def test_anything_else_is_refused(value):
    with pytest.raises(InvalidActiveSeconds, match="active_seconds"):
        active_seconds_parse(value)


def claimed(cases=2):
    expert = ExpertFactory()
    study = open_study(cases=cases, experts=[expert])
    return expert, study, services.assignment_claim_next(user=expert.user, pool=study.pool)


@pytest.mark.django_db
def test_the_draft_keeps_the_count_and_a_client_that_sends_none_does_not_reset_it():
    _, _, assignment = claimed()
    saved = Assignment.objects.filter(pk=assignment.pk)
    services.assignment_autosave(assignment=assignment, labels=[], active_seconds=42)
    assert saved.get().draft_active_seconds == 42
    services.assignment_autosave(assignment=assignment, labels=all_labels(assignment)[:1])
    assert saved.get().draft_active_seconds == 42
    services.assignment_autosave(assignment=assignment, labels=[], active_seconds=61)
    assert saved.get().draft_active_seconds == 61


@pytest.mark.django_db
@pytest.mark.parametrize("value", [-5, "30", 10**9])
def test_a_bad_figure_writes_no_draft_and_renews_no_lease(value):
    _, _, assignment = claimed()
    lease = assignment.lease_expires_at
    with pytest.raises(InvalidActiveSeconds):
        services.assignment_autosave(assignment=assignment, labels=[], active_seconds=value)
    assignment.refresh_from_db()
    assert assignment.lease_expires_at == lease and assignment.draft_saved_at is None


@pytest.mark.django_db
def test_the_submission_stores_the_count_and_a_repeat_keeps_the_first():
    _, _, assignment = claimed()
    submission, created = services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment), active_seconds=95
    )
    assert created and Submission.objects.get(pk=submission.pk).active_seconds == 95
    again, created = services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment), active_seconds=300
    )
    assert not created and Submission.objects.get(pk=again.pk).active_seconds == 95


@pytest.mark.django_db
def test_without_a_figure_the_submission_is_not_measured():
    _, _, assignment = claimed()
    submission, _ = services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    assert Submission.objects.get(pk=submission.pk).active_seconds is None


@pytest.mark.django_db
@pytest.mark.parametrize("value", BAD)
def test_a_bad_figure_on_submit_writes_nothing(value):
    _, _, assignment = claimed()
    with pytest.raises(InvalidActiveSeconds):
        services.assignment_submit(
            assignment=assignment, labels=all_labels(assignment), active_seconds=value
        )
    assert not Submission.objects.exists() and not PayEntry.objects.exists()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.LEASED


# ---- the API ------------------------------------------------------------------------------


def api_for(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_the_claim_carries_the_drafts_count_so_a_reload_counts_on():
    expert = ExpertFactory()
    open_study(cases=2, experts=[expert])
    api = api_for(expert.user)
    first = api.post("/api/v1/assignments/next/?study=study-a").json()
    assert first["active_seconds"] == 0
    saved = api.put(
        f"/api/v1/assignments/{first['id']}/draft/",
        {"labels": [], "active_seconds": 37},
        format="json",
    )
    assert saved.status_code == 200, saved.content
    # A reload claims again and gets the unit it holds, with the count so far.
    again = api.post("/api/v1/assignments/next/?study=study-a").json()
    assert again["id"] == first["id"] and again["active_seconds"] == 37
    assert api.get(f"/api/v1/assignments/{first['id']}/").json()["active_seconds"] == 37


@pytest.mark.django_db
def test_submit_over_the_api_with_and_without_a_figure():
    expert = ExpertFactory()
    study = open_study(cases=2, experts=[expert])
    api = api_for(expert.user)
    for sent in (118, None):
        body = api.post("/api/v1/assignments/next/?study=study-a").json()
        labels = [{"criterion": c["id"], "hit": True} for c in body["unit"]["criteria"]]
        payload = {"labels": labels} if sent is None else {"labels": labels, "active_seconds": sent}
        reply = api.post(f"/api/v1/assignments/{body['id']}/submit/", payload, format="json")
        assert reply.status_code == 201, reply.content
    stored = sorted(
        Submission.objects.filter(unit__pool=study.pool).values_list("active_seconds", flat=True),
        key=str,
    )
    assert stored == [118, None]


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ["draft", "submit"])
@pytest.mark.parametrize("value", [-1, "fast", 2.5, MAX_ACTIVE_SECONDS + 1])
def test_a_bad_figure_over_the_api_is_400_naming_the_field(endpoint, value):
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    api = api_for(expert.user)
    body = api.post("/api/v1/assignments/next/?study=study-a").json()
    labels = [{"criterion": c["id"], "hit": False} for c in body["unit"]["criteria"]]
    method = api.put if endpoint == "draft" else api.post
    reply = method(
        f"/api/v1/assignments/{body['id']}/{endpoint}/",
        {"labels": labels, "active_seconds": value},
        format="json",
    )
    assert reply.status_code == 400, reply.content
    assert "active_seconds" in reply.json()["active_seconds"][0]
    assert not Submission.objects.exists()
    assert not Assignment.objects.filter(draft_saved_at__isnull=False).exists()


@pytest.mark.django_db
def test_the_schema_documents_the_field():
    schema = APIClient().get("/api/schema/?format=json").json()["components"]["schemas"]
    sent = schema["LabelsIn"]["properties"]["active_seconds"]
    assert sent["maximum"] == MAX_ACTIVE_SECONDS and sent["minimum"] == 0
    assert sent.get("nullable") and "idle" in sent["description"]
    assert "active_seconds" not in schema["LabelsIn"].get("required", [])
    assert "active_seconds" in schema["AssignmentDetail"]["properties"]


# ---- reads: the dashboard's selector and the payroll export --------------------------------


@pytest.mark.django_db
def test_the_selector_lists_measured_rating_seconds_per_expert():
    ann, bob = ExpertFactory(user__username="ann"), ExpertFactory(user__username="bob")
    study = open_study(cases=3, experts=[ann, bob])
    for expert, seconds in [(ann, 40), (bob, None), (ann, 90)]:
        a = services.assignment_claim_next(user=expert.user, pool=study.pool)
        services.assignment_submit(assignment=a, labels=all_labels(a), active_seconds=seconds)
    found = active_seconds_by_expert(pool_id=study.pool_id)
    assert [(t.expert, t.seconds) for t in found] == [(ann, [40, 90])]


@pytest.mark.django_db
def test_the_payroll_export_adds_the_active_time_of_the_paid_units(tmp_path):
    ann, bob = ExpertFactory(user__username="ann"), ExpertFactory(user__username="bob")
    study = open_study(cases=3, experts=[ann, bob])
    services.pay_rate_set(pool=study.pool, tier="expert", amount=Decimal("10"), currency="CNY")
    for expert, seconds in [(ann, 40), (ann, None), (ann, 75), (bob, None)]:
        a = services.assignment_claim_next(user=expert.user, pool=study.pool)
        services.assignment_submit(assignment=a, labels=all_labels(a), active_seconds=seconds)
    today = str(timezone.localdate())
    out = tmp_path / "pay.csv"
    call_command("pay", "export", "--from", today, "--to", today, "--output", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    by_user = {r["username"]: r for r in rows}
    assert by_user["ann"]["units"] == "3"
    assert by_user["ann"]["timed_units"] == "2" and by_user["ann"]["active_seconds"] == "115"
    assert by_user["bob"]["timed_units"] == "0" and by_user["bob"]["active_seconds"] == "0"
