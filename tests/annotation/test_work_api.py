"""The construction tiers over the REST API (``/api/v1/work/<kind>/``): the same claim, lease
and submit as the pages, one shape for every kind, blind, and refusing what is not the
caller's."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import ConstructionTask, CriterionReview, DifficultyMark, PanelVote
from annotation.services.construction import construction_work_open, panel_send
from benchmark.models import AuditEvent
from tests.builders.construction import project_build, project_with_work_open

pytestmark = pytest.mark.django_db


def client_for(expert) -> APIClient:
    client = APIClient()
    client.force_authenticate(expert.user)
    return client


def claim(expert, kind, project="pilot"):
    return client_for(expert).post(f"/api/v1/work/{kind}/next/?project={project}")


@pytest.fixture
def built():
    return project_with_work_open()


def test_a_difficulty_mark_goes_claim_read_renew_submit(built):
    expert = built.experts[0]
    first = claim(expert, "difficulty")
    assert first.status_code == 201, first.content
    task = first.json()
    assert task["kind"] == "difficulty" and task["status"] == "leased"
    assert task["project"] == "pilot" and task["draft"]["dialogue"]
    assert task["draft"]["criteria"] == [] and task["draft"]["returns"] == []
    # Asking again hands back the task held, not a second draft.
    assert claim(expert, "difficulty").json()["id"] == task["id"]
    url = f"/api/v1/work/difficulty/{task['id']}/"
    client = client_for(expert)
    assert client.get(url).json()["draft"]["question_id"] == task["draft"]["question_id"]
    renewed = client.post(url + "renew/")
    assert renewed.status_code == 200 and renewed.json()["id"] == task["id"]

    refused = client.post(url + "submit/", {"difficulty": "hard"}, format="json")
    assert refused.status_code == 409, refused.content  # hard needs a reason: nothing stored
    assert not DifficultyMark.objects.exists()
    done = client.post(url + "submit/", {"difficulty": "normal"}, format="json")
    assert done.status_code == 201 and done.json()["status"] == "submitted"
    assert DifficultyMark.objects.get().difficulty == "normal"
    assert client.get(url).status_code == 404  # submitted: no longer to answer
    assert client.post(url + "submit/", {"difficulty": "normal"}, format="json").status_code == 404
    assert AuditEvent.objects.filter(action="construction_task.submit").count() == 1


@pytest.mark.parametrize(
    "body", [[], "normal", {"difficulty": "easy"}, {"difficulty": "hard", "reason": "nonsense"}]
)
def test_a_malformed_answer_is_a_400_and_stores_nothing(built, body):
    expert = built.experts[0]
    task = claim(expert, "difficulty").json()
    answer = client_for(expert).post(
        f"/api/v1/work/difficulty/{task['id']}/submit/", body, format="json"
    )
    assert answer.status_code == 400, answer.content
    assert not DifficultyMark.objects.exists()
    assert ConstructionTask.objects.get(public_id=task["id"]).status == "leased"


def test_nobody_reads_or_answers_another_experts_task(built):
    owner, other, senior = built.experts[0], built.experts[1], built.seniors[0]
    task = claim(owner, "difficulty").json()
    url = f"/api/v1/work/difficulty/{task['id']}/"
    for intruder in (other, senior):
        client = client_for(intruder)
        assert client.get(url).status_code == 404
        assert client.post(url + "renew/").status_code == 404
        answer = client.post(url + "submit/", {"difficulty": "normal"}, format="json")
        assert answer.status_code == 404
    # The id under another kind's path is no task of that kind.
    assert client_for(owner).get(f"/api/v1/work/panel/{task['id']}/").status_code == 404
    missing = client_for(owner).get("/api/v1/work/difficulty/not-a-uuid/")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
    assert APIClient().get(url).status_code == 401
    assert not DifficultyMark.objects.exists()


def test_the_claim_refuses_what_it_cannot_hand_out(built):
    expert = built.experts[0]
    assert client_for(expert).post("/api/v1/work/difficulty/next/").status_code == 400
    assert claim(expert, "difficulty", project="no-such").status_code == 404
    assert claim(expert, "panel").status_code == 403  # the panel is for seniors
    construction_work_open(project=project_build(name="other").project, kind="difficulty")
    assert claim(expert, "criterion_review", project="other").status_code == 404  # not open


def test_a_review_names_each_criterion_and_its_version_and_refuses_a_stale_one(built):
    reviewer = built.experts[0]
    task = claim(reviewer, "criterion_review").json()
    criteria = task["draft"]["criteria"]
    assert len(criteria) == 3 and all("reviews" not in c for c in criteria)
    url = f"/api/v1/work/criterion_review/{task['id']}/submit/"
    stale = [
        {"criterion": c["id"], "verdict": "clear", "version": c["version"] + 1} for c in criteria
    ]
    refused = client_for(reviewer).post(url, {"verdicts": stale}, format="json")
    assert refused.status_code == 409 and not CriterionReview.objects.exists()
    verdicts = [
        {"criterion": c["id"], "verdict": "clear", "version": c["version"]} for c in criteria
    ]
    assert client_for(reviewer).post(url, {"verdicts": verdicts}, format="json").status_code == 201
    assert CriterionReview.objects.count() == 3


def test_the_panel_sees_reviews_unnamed_and_votes(built):
    for reviewer in built.experts[:2]:
        while (response := claim(reviewer, "criterion_review")).status_code == 201:
            task = response.json()
            verdicts = [
                {"criterion": c["id"], "verdict": "clear", "version": c["version"]}
                for c in task["draft"]["criteria"]
            ]
            client_for(reviewer).post(
                f"/api/v1/work/criterion_review/{task['id']}/submit/",
                {"verdicts": verdicts},
                format="json",
            )
    draft = built.drafts[0]
    panel_send(user=built.author.user, draft=draft)
    senior = built.seniors[0]
    task = claim(senior, "panel").json()
    assert task["draft"]["question_id"] == draft.question_id
    reviews = [r for c in task["draft"]["criteria"] for r in c["reviews"]]
    assert len(reviews) == 6 and {r["verdict"] for r in reviews} == {"clear"}
    text = str(task)
    for person in [*built.experts, built.author]:
        assert person.user.username not in text and person.pseudonym not in text
    url = f"/api/v1/work/panel/{task['id']}/submit/"
    assert client_for(senior).post(url, {"vote": "return"}, format="json").status_code == 409
    assert client_for(senior).post(url, {"vote": "accept"}, format="json").status_code == 201
    assert PanelVote.objects.get().vote == "accept"


def test_a_lapsed_lease_is_won_back_while_the_slot_is_free_and_lost_once_taken(built):
    construction_work_open(project=built.project, kind="difficulty", raters=1)
    first, second = built.experts[:2]
    task = claim(first, "difficulty").json()
    ConstructionTask.objects.filter(public_id=task["id"]).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    renewed = client_for(first).post(f"/api/v1/work/difficulty/{task['id']}/renew/")
    assert renewed.status_code == 200 and renewed.json()["status"] == "leased"

    ConstructionTask.objects.filter(public_id=task["id"]).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    # Three drafts, one rater each: the second expert's claims take every free draft,
    # the lapsed one included.
    taken = {claim(second, "difficulty").json()["draft"]["question_id"]}
    while (response := claim(second, "difficulty")).status_code == 201:
        answer = response.json()
        taken.add(answer["draft"]["question_id"])
        client_for(second).post(
            f"/api/v1/work/difficulty/{answer['id']}/submit/", {"difficulty": "normal"},
            format="json",
        )  # fmt: skip
    assert task["draft"]["question_id"] in taken
    lost = client_for(first).post(
        f"/api/v1/work/difficulty/{task['id']}/submit/", {"difficulty": "normal"}, format="json"
    )
    assert lost.status_code == 409 and "another expert" in lost.json()["detail"]
    assert not DifficultyMark.objects.filter(task__public_id=task["id"]).exists()
