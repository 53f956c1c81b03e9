"""Adjudication of divergent units: which splits go to a senior, the senior queue, the gold."""

import io
import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib import admin
from django.core.management import CommandError, call_command
from django.test import RequestFactory
from django.utils import timezone
from rest_framework.test import APIClient

from annotation import events
from annotation import services as annotation_services
from annotation.models import Expert, Label, PayEntry, Submission, Unit
from benchmark.models import AuditEvent, RubricItem, Verdict
from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import (
    CATASTROPHIC,
    COPING,
    CURIOSITY,
    NEXT,
    WARMTH,
    api_for,
    decide_all,
    item_at,
    rate_positions,
    split_study,
)
from tests.builders.studies import MODEL_NAME_MARKER, dataset_with_responses, open_study
from validation import services
from validation.gate import GateConfig
from validation.models import GoldLabel, Study, StudyUnit

pytestmark = pytest.mark.django_db


def test_a_split_on_a_chosen_criterion_sends_only_that_criterion_to_the_senior_queue():
    study, _, _ = split_study(splits=["catastrophic"])
    unit = Unit.objects.get(pool=study.pool)
    assert unit.needs_adjudication
    assert unit.adjudicate_items == [item_at(study, CATASTROPHIC).pk]
    study_unit = study.units.get()
    assert study_unit.state == StudyUnit.State.AWAITING
    # Gold waits for the senior: not even the unanimous criteria are written yet.
    services.study_settle(study=study)
    assert not GoldLabel.objects.exists()
    assert study.units.get().state == StudyUnit.State.AWAITING
    queued = AuditEvent.objects.get(action="unit.adjudication_queued")
    assert queued.data["items"] == [item_at(study, CATASTROPHIC).pk]
    awaiting = AuditEvent.objects.get(action="study_unit.await_adjudication")
    assert awaiting.data["chosen"] == ["catastrophic"]


def test_a_split_on_a_criterion_the_study_did_not_choose_takes_the_majority():
    study, _, _ = split_study(splits=["curiosity", "emotional_coping"])
    assert not Unit.objects.get(pool=study.pool).needs_adjudication
    gold = {g.rubric_item.position: (g.hit, g.provenance) for g in GoldLabel.objects.all()}
    assert gold == {
        WARMTH: (True, "2/1"),
        CURIOSITY: (True, "3/3"),
        COPING: (False, "3/3"),
        CATASTROPHIC: (False, "2/1"),
    }
    assert study.units.get().state == StudyUnit.State.GOLD
    assert not AuditEvent.objects.filter(action="unit.adjudication_queued").exists()


def test_star_sends_every_split_criterion_and_no_unanimous_one():
    study, _, _ = split_study(splits=["*"])
    unit = Unit.objects.get(pool=study.pool)
    assert unit.adjudicate_items == sorted(
        [item_at(study, WARMTH).pk, item_at(study, CATASTROPHIC).pk]
    )


def test_no_choice_means_no_split_goes_to_a_senior():
    study, _, _ = split_study(splits=[])
    assert not Unit.objects.get(pool=study.pool).needs_adjudication
    assert GoldLabel.objects.count() == 4


def test_a_unanimous_unit_never_goes_to_a_senior_even_with_star():
    raters = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=raters, name="same", adjudicate_splits=["*"])
    for expert in raters:
        rate_positions(expert, study, {WARMTH: True})
    assert not Unit.objects.get(pool=study.pool).needs_adjudication
    assert set(GoldLabel.objects.values_list("provenance", flat=True)) == {"3/3"}


def _refuse(**kwargs):
    raise RuntimeError("routing failed")


# Its own transaction, as a request has: inside a caller's, a failed submit leaves that
# transaction to be rolled back whole (the submit opens no savepoint).
@pytest.mark.django_db(transaction=True)
def test_routing_runs_in_the_transaction_of_the_third_rating(monkeypatch):
    raters = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=raters, name="tx", adjudicate_splits=["*"])
    rate_positions(raters[0], study, {WARMTH: True})
    rate_positions(raters[1], study, {})
    monkeypatch.setattr(events, "RATED", [_refuse])
    with pytest.raises(RuntimeError):
        rate_positions(raters[2], study, {})
    # The third submission rolled back with the failed routing: nothing half-written.
    assert Submission.objects.count() == 2
    assert not AuditEvent.objects.filter(action="rating.submit", data__slot=3).exists()


def test_a_senior_decision_is_gold_in_its_own_transaction_with_no_broker(
    django_capture_on_commit_callbacks,
):
    """No task stands between a decision and its gold: with every on-commit callback
    dropped (a broker that is down), the decided unit is adjudicated at once."""
    study, _, senior = split_study(splits=["*"])
    assert study.units.get().state == StudyUnit.State.AWAITING
    client = api_for(senior)
    body = client.post(NEXT + study.name).json()
    with django_capture_on_commit_callbacks(execute=False):
        assert decide_all(client, body).status_code == 201
    assert study.units.get().state == StudyUnit.State.ADJUDICATED
    assert GoldLabel.objects.filter(study_unit__study=study).exists()


def test_unknown_ability_codes_are_refused_with_the_valid_ones():
    with pytest.raises(services.StudyError, match=r"unknown ability code.*warmth"):
        open_study(cases=1, experts=[], adjudicate_splits=["warmth", "kindness"])
    assert not Study.objects.exists()


def test_splits_are_chosen_only_while_the_study_is_a_draft():
    raters = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=raters, name="late")
    with pytest.raises(services.StudyError, match="draft"):
        services.study_set_adjudicate_splits(study=study, codes="warmth")
    study.refresh_from_db()
    assert study.adjudicate_splits == []


def test_study_create_command_takes_adjudicate_splits(capsys):
    open_study(cases=2, experts=[], name="base")  # a dataset and a model to sample from
    study = Study.objects.get(name="base")
    model = study.models_under_test.get().name
    call_command(
        "study", "create", "cli", "--dataset", study.dataset.name, "--models", model,
        "--fraction", "1", "--adjudicate-splits", "catastrophic, warmth",
    )  # fmt: skip
    assert Study.objects.get(name="cli").adjudicate_splits == ["catastrophic", "warmth"]
    assert "adjudicate" in capsys.readouterr().out
    with pytest.raises(CommandError, match="unknown ability code"):
        call_command(
            "study", "create", "cli2", "--dataset", study.dataset.name, "--models", model,
            "--adjudicate-splits", "nonsense",
        )  # fmt: skip
    assert not Study.objects.filter(name="cli2").exists()


def test_the_senior_queue_works_while_the_study_is_open_and_shows_no_rater_label():
    study, _, senior = split_study(splits=["*"])
    assert study.status == "open"
    response = api_for(senior).post(NEXT + study.name)
    assert response.status_code == 201
    body = response.json()
    assert body["unit"]["whole_unit"] is False
    # The split criteria to decide, and not how the ratings went (not even counted).
    assert sorted(c["text"] for c in body["unit"]["criteria"]) == sorted(
        [item_at(study, WARMTH).text, item_at(study, CATASTROPHIC).text]
    )
    assert all(set(c) == {"id", "text"} for c in body["unit"]["criteria"])
    assert AuditEvent.objects.filter(action="adjudication.claim").count() == 1
    # A reload gives the same unit back under the same lease, not a second one.
    again = api_for(senior).post(NEXT + study.name).json()
    assert again["id"] == body["id"]


def test_the_adjudication_api_is_blind_to_raters_models_and_judges():
    raters = [ExpertFactory(user__username=f"rater-name-{i}") for i in range(3)]
    study, _, senior = split_study(splits=["*"], raters=raters, judge=True)
    run = study.judge_runs.get()
    response_obj = study.units.get().unit.response
    for item in RubricItem.objects.filter(case=response_obj.case):
        Verdict.objects.create(
            run=run, response=response_obj, rubric_item=item, state="met",
            reasoning="JUDGE-REASONING-MARKER",
        )  # fmt: skip
    client = api_for(senior)
    body = client.post(NEXT + study.name).json()
    detail = client.get(f"/api/v1/adjudications/{body['id']}/").json()
    for payload in (body, detail):
        text = json.dumps(payload, ensure_ascii=False)
        assert MODEL_NAME_MARKER not in text
        assert run.judge.name not in text and "JUDGE-REASONING-MARKER" not in text
        for rater in raters:
            assert rater.user.username not in text
            assert rater.pseudonym not in text
        assert "rater-note" not in text  # the raters' notes could tell them apart
        assert "slot" not in text and "rater" not in text
        assert set(payload["unit"]["criteria"][0]) <= {"id", "text", "ability"}
        assert "met" not in text and "hit" not in text  # no rater's label, not even counted


def test_a_senior_never_adjudicates_a_unit_they_rated():
    seniors = [ExpertFactory(tier="senior") for _ in range(2)]
    raters = [seniors[0], *ExpertFactory.create_batch(2)]
    study, _, other_senior = split_study(splits=["*"], raters=raters, senior=seniors[1])
    assert Unit.objects.get(pool=study.pool).needs_adjudication
    assert api_for(seniors[0]).post(NEXT + study.name).status_code == 204
    assert api_for(other_senior).post(NEXT + study.name).status_code == 201


def test_non_seniors_are_refused_and_others_adjudications_are_not_found():
    study, raters, senior = split_study(splits=["*"])
    assert api_for(raters[0]).post(NEXT + study.name).status_code == 403
    assert APIClient().post(NEXT + study.name).status_code == 401
    body = api_for(senior).post(NEXT + study.name).json()
    assert api_for(raters[0]).get(f"/api/v1/adjudications/{body['id']}/").status_code == 403
    another = ExpertFactory(tier="senior")
    study.pool.experts.add(another)
    assert api_for(another).get(f"/api/v1/adjudications/{body['id']}/").status_code == 404
    assert decide_all(api_for(another), body).status_code == 404
    assert not Submission.objects.filter(kind="adjudication").exists()


def test_a_reason_is_required_for_every_decision():
    study, _, senior = split_study(splits=["*"])
    client = api_for(senior)
    body = client.post(NEXT + study.name).json()
    url = f"/api/v1/adjudications/{body['id']}/submit/"
    ids = [c["id"] for c in body["unit"]["criteria"]]
    no_reason = [{"criterion": i, "hit": True} for i in ids]
    blank = [{"criterion": i, "hit": True, "reason": "   "} for i in ids]
    one_missing = [{"criterion": ids[0], "hit": True, "reason": "ok"}]
    for decisions in (no_reason, blank, one_missing):
        response = client.post(url, {"decisions": decisions}, format="json")
        assert response.status_code == 400, decisions
    assert not Submission.objects.filter(kind="adjudication").exists()
    assert decide_all(client, body, hit=False, reason="the reply never names the feeling")
    assert Submission.objects.filter(kind="adjudication").count() == 1


def test_the_decision_is_the_gold_of_decided_criteria_and_the_majority_stays_for_the_others():
    study, _, senior = split_study(splits=["catastrophic"])
    item = item_at(study, CATASTROPHIC)
    RubricItem.objects.filter(pk=item.pk).update(version=2)
    client = api_for(senior)
    body = client.post(NEXT + study.name).json()
    assert [c["text"] for c in body["unit"]["criteria"]] == [item.text]
    response = decide_all(client, body, hit=True, reason="the reply urges self-harm")
    assert response.status_code == 201
    services.study_settle(study=study)
    gold = {g.rubric_item.position: (g.hit, g.provenance) for g in GoldLabel.objects.all()}
    assert gold == {
        WARMTH: (True, "2/1"),
        CURIOSITY: (True, "3/3"),
        COPING: (False, "3/3"),
        CATASTROPHIC: (True, "adjudicated"),  # overturns the 1/2 majority
    }
    assert study.units.get().state == StudyUnit.State.ADJUDICATED
    label = Label.objects.get(submission__kind="adjudication")
    assert (label.rubric_item_id, label.note, label.rubric_version) == (
        item.pk,
        "the reply urges self-harm",
        2,
    )
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"adjudication.claim", "adjudication.submit", "adjudication.decide"} <= actions
    decide = AuditEvent.objects.get(action="adjudication.decide")
    assert decide.data["decided"] == 1 and decide.data["by_majority"] == 3
    # Repeating the identical request is harmless; a different one is refused.
    assert decide_all(client, body, hit=True, reason="the reply urges self-harm").status_code == 200
    assert decide_all(client, body, hit=False, reason="changed my mind").status_code == 409
    assert GoldLabel.objects.filter(provenance="adjudicated").count() == 1


def test_an_adjudication_earns_the_senior_rate_once():
    study, _, senior = split_study(splits=["*"])
    annotation_services.pay_rate_set(
        pool=study.pool, tier="senior", amount=Decimal("30"), currency="CNY"
    )
    client = api_for(senior)
    body = client.post(NEXT + study.name).json()
    decide_all(client, body)
    decide_all(client, body)  # repeated: no second entry
    decide_all(client, body, hit=False)  # refused: no entry
    entries = PayEntry.objects.filter(expert=senior)
    assert [(e.amount, e.submission.kind) for e in entries] == [(Decimal("30.00"), "adjudication")]


def test_incomplete_units_at_close_go_to_the_queue_whole_to_decide_every_criterion():
    raters = ExpertFactory.create_batch(2)
    senior = ExpertFactory(tier="senior")
    study = open_study(cases=1, experts=[*raters, senior], name="short")
    rate_positions(raters[0], study, {WARMTH: True})
    services.study_close(study=study)
    unit = Unit.objects.get(pool=study.pool)
    assert unit.needs_adjudication and unit.adjudicate_items == []
    client = api_for(senior)
    # The workbench no longer hands out adjudications; the senior queue does.
    assert client.post("/api/v1/assignments/next/?study=short").status_code == 204
    body = client.post(NEXT + "short").json()
    assert body["unit"]["whole_unit"] is True
    assert len(body["unit"]["criteria"]) == 4  # every criterion, rated or not
    assert decide_all(client, body, hit=False).status_code == 201
    services.study_settle(study=study)
    assert set(GoldLabel.objects.values_list("hit", "provenance")) == {(False, "adjudicated")}
    assert GoldLabel.objects.count() == 4


def test_the_workbench_cannot_submit_an_adjudication_without_reasons():
    study, _, senior = split_study(splits=["*"])
    body = api_for(senior).post(NEXT + study.name).json()
    assignment = senior.assignments.get()
    labels = [{"criterion": c["id"], "hit": True} for c in body["unit"]["criteria"]]
    with pytest.raises(annotation_services.AnnotationError, match="senior queue"):
        annotation_services.assignment_submit(assignment=assignment, labels=labels)
    response = api_for(senior).post(
        f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels}, format="json"
    )
    assert response.status_code == 409
    # Holding the adjudication, the workbench claim says so instead of showing the unit.
    assert api_for(senior).post(f"/api/v1/assignments/next/?study={study.name}").status_code == 409


def _admin_form(study, data):
    request = RequestFactory().get("/")
    request.user = ExpertFactory(user__is_staff=True, user__is_superuser=True).user
    model_admin = admin.site._registry[Study]
    form_class = model_admin.get_form(request, study)
    initial = form_class(instance=study).initial
    fields = {name: initial.get(name) for name in form_class.base_fields}
    fields = {k: ("" if v is None else v) for k, v in fields.items()}
    return model_admin, request, form_class(data=fields | data, instance=study)


def test_the_admin_sets_splits_on_a_draft_study_and_names_unknown_codes():
    draft = services.study_create(
        name="draft-admin",
        dataset=open_study(cases=1, experts=[], name="src").dataset,
        models=list(Study.objects.get(name="src").models_under_test.all()),
        fraction=1.0,
    )
    model_admin, request, form = _admin_form(draft, {"adjudicate_splits": "warmth, kindness"})
    assert not form.is_valid()
    assert "kindness" in str(form.errors["adjudicate_splits"])
    model_admin, request, form = _admin_form(draft, {"adjudicate_splits": "catastrophic,warmth"})
    assert form.is_valid(), form.errors
    model_admin.save_model(request, form.save(commit=False), form, change=True)
    draft.refresh_from_db()
    assert draft.adjudicate_splits == ["catastrophic", "warmth"]
    event = AuditEvent.objects.get(action="study.adjudicate_splits")
    assert event.data == {"from": [], "to": ["catastrophic", "warmth"]}
    # Once open, the choice is read-only in the admin.
    services.study_open(study=draft)
    assert "adjudicate_splits" in model_admin.get_readonly_fields(request, draft)


def test_the_demo_study_leaves_one_split_unit_in_the_senior_queue():
    dataset, _ = dataset_with_responses(cases=10, models=2)
    dataset.is_demo = True
    dataset.save()
    out = io.StringIO()
    call_command("demo_study", stdout=out)
    assert "/adjudicate/demo-study/" in out.getvalue()
    study = Study.objects.get(name="demo-study")
    assert study.adjudicate_splits == ["*"]
    [unit] = Unit.objects.filter(pool=study.pool, needs_adjudication=True)
    assert len(unit.adjudicate_items) == 2
    assert Submission.objects.filter(unit=unit, kind="rating").count() == 3
    senior = Expert.objects.get(user__username="demo-senior")
    body = api_for(senior).post(NEXT + "demo-study").json()
    assert body["unit"]["token"] == unit.token
    assert len(body["unit"]["criteria"]) == 2
    # Run again: nothing changes.
    before = AuditEvent.objects.count()
    call_command("demo_study", stdout=io.StringIO())
    assert AuditEvent.objects.count() == before


def test_one_senior_at_a_time_under_a_lease_that_expires():
    study, _, senior = split_study(splits=["*"])
    second = ExpertFactory(tier="senior")
    study.pool.experts.add(second)
    start = timezone.now()
    first = annotation_services.adjudication_claim_next(
        user=senior.user, pool=study.pool, now=start
    )
    assert first is not None
    assert (
        annotation_services.adjudication_claim_next(user=second.user, pool=study.pool, now=start)
        is None
    )
    later = start + timedelta(seconds=study.pool.lease_seconds + 1)
    taken = annotation_services.adjudication_claim_next(
        user=second.user, pool=study.pool, now=later
    )
    assert taken is not None and taken.unit_id == first.unit_id
    assert AuditEvent.objects.filter(action="assignment.lease_expired").count() == 1


def test_the_admin_sets_the_gate_of_a_draft_study_only():
    draft = services.study_create(
        name="gate-admin",
        dataset=open_study(cases=1, experts=[], name="src").dataset,
        models=list(Study.objects.get(name="src").models_under_test.all()),
        fraction=1.0,
    )
    model_admin, request, form = _admin_form(draft, {"gate_noninferiority_margin": "2"})
    assert not form.is_valid()  # the table's check: a margin is a share of macro-F1
    draft.refresh_from_db()  # the refused form wrote its values onto the instance
    model_admin, request, form = _admin_form(
        draft, {"gate_threshold": "0.8", "gate_catastrophic_min_hits": "25"}
    )
    assert form.is_valid(), form.errors
    model_admin.save_model(request, form.save(commit=False), form, change=True)
    draft.refresh_from_db()
    assert (draft.gate_threshold, draft.gate_catastrophic_min_hits) == (0.8, 25)
    event = AuditEvent.objects.get(action="study.gate")
    assert event.data["from"]["agreement_min"] == 0.75 and event.data["to"]["agreement_min"] == 0.8
    services.study_open(study=draft)
    readonly = model_admin.get_readonly_fields(request, draft)
    assert {"gate_threshold", "gate_score_bias"} <= set(readonly)
    with pytest.raises(services.StudyError, match="only be changed while the study is a draft"):
        services.study_set_gate(study=draft, gate=GateConfig())
