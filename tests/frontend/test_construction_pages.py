"""The construction tiers' pages through the test client: /construct/ lists open work and
starts it, each task page shows the draft (blind: no other expert's answer, no model score)
and records its answer or says what is wrong with the posted values kept, the author revises,
removes and sends; nobody reaches a task or criterion that is not theirs."""

import pytest
from django.test import Client

from annotation.models import ConstructionTask, CriterionReview, DifficultyMark
from annotation.services.construction import (
    construction_task_claim_next,
    criterion_review_submit,
    difficulty_mark_submit,
)
from benchmark.models import DraftCase, DraftCriterion
from benchmark.services.criteria import draft_criterion_revise
from tests.builders.construction import project_with_work_open

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def built():
    return project_with_work_open()


def test_home_lists_the_open_work_and_start_leads_to_the_first_draft(built):
    client = client_for(built.experts[0].user)
    page = client.get("/construct/").content.decode()
    assert "difficulty" in page and "criterion review" in page
    assert "senior panel" not in page  # not a senior
    assert 'href="/construct/selfcheck/"' in page  # the authors' self-check is found from here
    work = built.project.expert_work.get(kind="difficulty")
    started = client.post(f"/construct/start/{work.pk}/")
    task = ConstructionTask.objects.get(expert=built.experts[0])
    assert started.url == f"/construct/task/{task.pk}/"
    page = client.get(started.url).content.decode()
    assert built.drafts[0].question_id in page and "I keep rehearsing" in page


def test_a_difficulty_page_keeps_a_bad_answer_and_records_a_good_one(built):
    other = built.experts[1]
    first = construction_task_claim_next(user=other.user, project=built.project, kind="difficulty")
    difficulty_mark_submit(user=other.user, task_id=first.pk, difficulty="hard",
                           reason="ethical_tradeoff", comment="SECRET-MARK")  # fmt: skip
    client = client_for(built.experts[0].user)
    task = construction_task_claim_next(
        user=built.experts[0].user, project=built.project, kind="difficulty"
    )
    page = client.get(f"/construct/task/{task.pk}/").content.decode()
    assert "SECRET-MARK" not in page  # blind to the other marks
    bad = client.post(f"/construct/task/{task.pk}/", {"difficulty": "hard", "comment": "kept"})
    assert bad.status_code == 400
    assert "Say why the case is hard" in bad.content.decode()
    assert "kept" in bad.content.decode()
    assert DifficultyMark.objects.count() == 1
    good = client.post(
        f"/construct/task/{task.pk}/", {"difficulty": "hard", "reason": "mixed_emotions"}
    )
    assert good.status_code == 302
    assert DifficultyMark.objects.get(task=task).reason == "mixed_emotions"
    nxt = ConstructionTask.objects.get(expert=built.experts[0], status="leased")
    assert good.url == f"/construct/task/{nxt.pk}/" and nxt.draft == built.drafts[1]


def test_nobody_opens_a_task_that_is_not_theirs(built):
    task = construction_task_claim_next(
        user=built.experts[0].user, project=built.project, kind="difficulty"
    )
    assert client_for(built.experts[1].user).get(f"/construct/task/{task.pk}/").status_code == 404


def _reviewed(built):
    for expert in built.experts[:2]:
        task = construction_task_claim_next(
            user=expert.user, project=built.project, kind="criterion_review"
        )
        ids = task.draft.criteria.values_list("pk", flat=True)
        verdicts = {pk: ("ambiguous", f"{expert.user.username} asks which exam") for pk in ids}
        criterion_review_submit(user=expert.user, task_id=task.pk, verdicts=verdicts)


def test_a_review_page_needs_a_comment_for_a_problem(built):
    client = client_for(built.experts[0].user)
    task = construction_task_claim_next(
        user=built.experts[0].user, project=built.project, kind="criterion_review"
    )
    ids = list(task.draft.criteria.values_list("pk", flat=True))
    answer = {f"verdict-{pk}": "clear" for pk in ids} | {f"version-{pk}": "1" for pk in ids}
    answer[f"verdict-{ids[0]}"] = "not_binary"
    bad = client.post(f"/construct/task/{task.pk}/", answer)
    assert bad.status_code == 400 and "Criterion 1" in bad.content.decode()
    assert not CriterionReview.objects.exists()
    answer[f"comment-{ids[0]}"] = "two behaviours in one"
    assert client.post(f"/construct/task/{task.pk}/", answer).status_code == 302
    assert CriterionReview.objects.get(criterion_id=ids[0]).verdict == "not_binary"


def test_the_author_revises_removes_and_sends_and_others_cannot(built):
    _reviewed(built)
    author = client_for(built.author.user)
    page = author.get("/construct/revisions/").content.decode()
    assert "pilot-expert0 asks which exam" in page and "3 criteria questioned" in page
    criteria = list(built.drafts[0].criteria.order_by("position"))
    stranger = client_for(built.experts[0].user)
    assert stranger.post(f"/construct/criteria/{criteria[0].pk}/", {}).status_code == 404
    assert stranger.post(f"/construct/send/{built.drafts[0].pk}/").status_code == 404
    revised = author.post(
        f"/construct/criteria/{criteria[0].pk}/",
        {"action": "revise", "text": "回应用户对期末考试失利的自责", "ability":
         "emotional_understanding", "points": "3", "reason": "which exam"},
    )  # fmt: skip
    assert revised.status_code == 302
    assert DraftCriterion.objects.get(pk=criteria[0].pk).version == 2
    refused = author.post(
        f"/construct/criteria/{criteria[1].pk}/",
        {"action": "revise", "text": "x", "ability": "warmth", "points": "two", "reason": "r"},
    )
    assert "whole number" in author.get(refused.url).content.decode()
    author.post(f"/construct/criteria/{criteria[1].pk}/", {"action": "remove", "reason": "dup"})
    removed = DraftCriterion.objects.get(pk=criteria[1].pk)
    assert (removed.status, removed.removed_stage, removed.removed_reason) == (
        "removed", "review", "dup",
    )  # fmt: skip
    author.post(f"/construct/send/{built.drafts[0].pk}/")
    assert built.drafts[0].panel_rounds.get().number == 1
    assert "with the panel" in author.get("/construct/revisions/").content.decode()


def test_the_panel_page_shows_the_reviews_and_records_a_vote(built):
    _reviewed(built)
    client_for(built.author.user).post(f"/construct/send/{built.drafts[0].pk}/")
    senior = built.seniors[0]
    client = client_for(senior.user)
    work = built.project.expert_work.get(kind="panel")
    task_url = client.post(f"/construct/start/{work.pk}/").url
    page = client.get(task_url).content.decode()
    assert "pilot-expert1 asks which exam" in page
    assert client.post(task_url, {"vote": "return"}).status_code == 400
    assert client.post(task_url, {"vote": "return", "reason": "vague"}).status_code == 302
    assert DraftCase.objects.get(pk=built.drafts[0].pk).status == "active"
    # A non-senior is told, not handed the panel.
    refused = client_for(built.experts[0].user).post(f"/construct/start/{work.pk}/", follow=True)
    assert "Only senior experts sit on the panel" in refused.content.decode()


def test_a_review_of_a_criterion_revised_meanwhile_is_refused(built):
    client = client_for(built.experts[0].user)
    task = construction_task_claim_next(
        user=built.experts[0].user, project=built.project, kind="criterion_review"
    )
    criteria = list(task.draft.criteria.order_by("position"))
    answer = {f"verdict-{c.pk}": "clear" for c in criteria}
    answer |= {f"version-{c.pk}": "1" for c in criteria}
    draft_criterion_revise(
        criterion=criteria[1], text="语气温和", points=2, ability="warmth",
        author=built.author.user, reason="shorter",
    )  # fmt: skip
    refused = client.post(f"/construct/task/{task.pk}/", answer)
    assert refused.status_code == 400
    assert "Criterion 2 was revised while you read it" in refused.content.decode()
    assert "语气温和" in refused.content.decode()
    assert not CriterionReview.objects.exists()
    answer[f"version-{criteria[1].pk}"] = "2"
    assert client.post(f"/construct/task/{task.pk}/", answer).status_code == 302
    assert CriterionReview.objects.get(criterion=criteria[1]).criterion_version == 2
