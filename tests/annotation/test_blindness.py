"""Walk every expert-facing endpoint and page and look for anything an expert must not see."""

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.blinding import shuffled
from benchmark.models import RubricItem, Verdict
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.labels import page_words
from tests.builders.studies import MODEL_NAME_MARKER, dataset_with_responses
from validation import services

pytestmark = pytest.mark.django_db

JUDGE_MARKER = "judge-name-MARKER"
REASONING_MARKER = "JUDGE-REASONING-MARKER"
OTHER_NOTE_MARKER = "OTHER-RATER-NOTE-MARKER"
FORBIDDEN = [MODEL_NAME_MARKER, JUDGE_MARKER, REASONING_MARKER, OTHER_NOTE_MARKER]
ALLOWED_KEYS = {
    "id", "status", "kind", "lease_expires_at", "unit", "draft", "token", "dialogue", "role",
    "content", "response", "criteria", "text", "ability", "submitted_at", "study", "name",
    "hit", "note",
    # A unit's kind of question (rubric or pairwise) and, for a pair, its two responses as
    # this assignment shows them: nothing about which model wrote which.
    "question_type", "responses",
    # A criterion's rubric version: says the text was edited, nothing about model, judge,
    # other raters or the study's progress.
    "version",
    # An assignment read again once submitted: the expert's own submitted labels (a second
    # tab shows them beside its own marks), never another rater's.
    "submitted",
    # What the next-unit claim would find (ready, capacity_reached, study_closed, ...): one
    # word from a fixed list about the expert's own situation, never a count.
    "work_state",
    # The expert's own active time on the unit so far (from their draft), never anyone else's.
    "active_seconds",
    # The progress line a claim answers with (as GET studies/{name}/progress/): the expert's
    # own counts and how many of the study's units are complete, never a unit's labels,
    # votes or raters.
    "progress", "mine", "left_for_me", "left_for_me_more", "capacity_left", "team_complete",
    "team_total",
    # A page of a list: the count of the expert's own rows and the links to the next page.
    "count", "next", "previous", "results",
}  # fmt: skip


def keys_of(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


@pytest.fixture
def world():
    dataset, models = dataset_with_responses(cases=2, models=1)
    judge = JudgeFactory(name=JUDGE_MARKER)
    run = JudgeRunFactory(judge=judge, model=models[0], dataset=dataset)
    for response in models[0].responses.all():
        for item in RubricItem.objects.filter(case=response.case):
            Verdict.objects.create(
                run=run, response=response, rubric_item=item, state="met",
                reasoning=REASONING_MARKER, raw_reply=REASONING_MARKER,
            )  # fmt: skip
    experts = ExpertFactory.create_batch(3)
    study = services.study_create(
        name="blind-study", dataset=dataset, models=models, judge_runs=[run], fraction=1.0,
        seed=1, experts=experts, show_ability=True,
    )  # fmt: skip
    services.study_open(study=study)
    # Two other raters submit on every unit, with notes the third must never see.
    for other in experts[:2]:
        client = APIClient()
        client.force_authenticate(other.user)
        next_url = "/api/v1/assignments/next/?study=blind-study"
        while (body := client.post(next_url)).status_code == 201:
            data = body.json()
            labels = [
                {"criterion": c["id"], "hit": True, "note": OTHER_NOTE_MARKER}
                for c in data["unit"]["criteria"]
            ]
            submit = f"/api/v1/assignments/{data['id']}/submit/"
            client.post(submit, {"labels": labels}, format="json")
    return study, experts[2]


def test_no_model_judge_other_rater_or_statistics_in_any_expert_response(world):
    _study, expert = world
    api = APIClient()
    api.force_authenticate(expert.user)
    seen = []

    def record(response, expected):
        assert response.status_code == expected, response.content
        seen.append(response)
        return response.json() if response.content else None

    studies = record(api.get("/api/v1/studies/"), 200)["results"]
    assert {s["work_state"] for s in studies} <= {"ready", "capacity_reached", "nothing_left"}
    body = record(api.post("/api/v1/assignments/next/?study=blind-study"), 201)
    base = f"/api/v1/assignments/{body['id']}"
    record(api.get(f"{base}/"), 200)
    first = [{"criterion": body["unit"]["criteria"][0]["id"], "hit": True}]
    record(api.put(f"{base}/draft/", {"labels": first}, format="json"), 200)
    record(api.post(f"{base}/renew/"), 200)
    labels = [{"criterion": c["id"], "hit": False} for c in body["unit"]["criteria"]]
    record(api.post(f"{base}/submit/", {"labels": labels}, format="json"), 201)
    record(api.get("/api/v1/assignments/completed/"), 200)

    pages = Client()
    assert pages.login(username=expert.user.username, password=PASSWORD)
    for url in ["/", "/rate/blind-study/", "/done/", "/login/"]:
        response = pages.get(url, follow=True)
        assert response.status_code == 200, url
        seen.append(response)

    for response in seen:
        text = response.content.decode()
        for marker in FORBIDDEN:
            assert marker not in text, (response.request["PATH_INFO"], marker)
        for word in ("verdict", "judge", "agreement", "gold", "kappa", "seed", "fraction"):
            assert word not in page_words(response), (response.request["PATH_INFO"], word)
        if response.get("Content-Type", "").startswith("application/json") and text:
            assert keys_of(json.loads(text)) <= ALLOWED_KEYS, response.request["PATH_INFO"]

    # Criterion ids reveal neither the rubric position nor the database key; no points.
    criteria = body["unit"]["criteria"]
    token = body["unit"]["token"]
    items = RubricItem.objects.filter(case__responses__annotation_units__token=token)
    for criterion in criteria:
        assert set(criterion) == {"id", "text", "ability", "version"}
        assert criterion["id"] not in {str(i.pk) for i in items} | {str(i.position) for i in items}


def test_criterion_ids_differ_between_assignments_of_the_same_unit_and_survive_a_reload():
    experts = ExpertFactory.create_batch(2)
    dataset, models = dataset_with_responses(cases=1)
    study = services.study_create(
        name="ids", dataset=dataset, models=models, fraction=1.0, seed=3, experts=experts
    )
    services.study_open(study=study)
    bodies = []
    for expert in experts:
        api = APIClient()
        api.force_authenticate(expert.user)
        body = api.post("/api/v1/assignments/next/?study=ids").json()
        assert api.get(f"/api/v1/assignments/{body['id']}/").json()["unit"] == body["unit"]
        assert "ability" not in body["unit"]["criteria"][0]  # the study hides abilities
        bodies.append(body)
    assert bodies[0]["unit"]["token"] == bodies[1]["unit"]["token"]
    ids = [{c["id"] for c in b["unit"]["criteria"]} for b in bodies]
    assert not ids[0] & ids[1]


def test_shuffle_is_deterministic_per_seed_and_varies_between_seeds():
    items = list(range(12))
    assert shuffled(items, seed=5) == shuffled(items, seed=5)
    orders = {tuple(shuffled(items, seed=s)) for s in range(20)}
    assert len(orders) == 20
