"""The self-check pages as the author uses them: label by form (a bad value refused with the
reason, nothing written), save, submit; the judge's verdicts appear only after the submit,
with the disagreement marked; revising a criterion from the comparison (reason required)
leaves the old label marked as of an old version. Staff read; others get 404."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import MockScore
from benchmark.models import DraftCriterion
from benchmark.services.criteria import draft_criterion_remove
from tests.builders.i18n import untranslated
from tests.builders.selfcheck import selfcheck_world, snapshot_judged

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    author = get_user_model().objects.create_user("author")
    world = selfcheck_world(author=author)
    snapshot_judged(draft=world.draft, judge_name="judge-zeta",
                    states={"ref-a": ["met", "met", "not_met"], "ref-b": ["met"] * 3,
                            "ref-c": ["not_met"] * 3})  # fmt: skip
    world.client = Client()
    world.client.force_login(author)
    return world


def urls(world):
    draft, response = world.draft.pk, world.responses["ref-a"].pk
    return (reverse("frontend:selfcheck-draft", args=[draft]),
            reverse("frontend:selfcheck-label", args=[draft, response]))  # fmt: skip


def form(world, *marks: str, action: str) -> dict:
    marks = dict(zip(world.criteria, marks, strict=False))
    return {"action": action, **{f"criterion-{c.pk}": mark for c, mark in marks.items()}}


def test_a_bad_label_is_refused_with_the_reason_and_nothing_is_written(world):
    _, label = urls(world)
    answer = world.client.post(label, form(world, "1", "yes", "0", action="submit"))
    assert answer.status_code == 400
    assert "met (1) or not met (0)" in answer.content.decode()
    answer = world.client.post(label, form(world, "1", "0", action="submit"))
    assert answer.status_code == 400 and "3 still unlabelled" in answer.content.decode()
    assert not MockScore.objects.filter(submitted_at__isnull=False).exists()


def test_labels_then_the_judge_then_a_revision(world):
    page, label = urls(world)
    before = world.client.get(page).content.decode()
    assert "judge-zeta" not in before and "pilot-ref" not in before  # blind: judge and model
    assert "shown once you submit" in before
    labelling = world.client.get(label).content.decode()
    assert "judge-zeta" not in labelling and "pilot-ref" not in labelling
    assert world.client.post(label, form(world, "1", action="autosave")).status_code == 204
    assert world.client.post(label, form(world, "1", "0", action="save")).status_code == 302
    assert 'value="0" checked' in world.client.get(label).content.decode()
    answer = world.client.post(label, form(world, "1", "0", "0", action="submit"), follow=True)
    html = answer.content.decode()
    assert "judge-zeta" in html and "1 disagreement with the judge" in html
    assert html.count('class="state-disagree"') == 1
    assert world.client.get(label).status_code == 302  # submitted: final, back to the page
    criterion = world.criteria[1]
    revise = reverse("frontend:selfcheck-revise", args=[world.draft.pk, criterion.pk])
    refused = world.client.post(revise, {"text": "询问了失眠多久", "points": "2", "reason": ""},
                                follow=True).content.decode()  # fmt: skip
    assert "was not revised" in refused and "Give a reason" in refused
    world.client.post(revise, {"text": "询问了失眠多久", "points": "2", "reason": "更具体"})
    assert DraftCriterion.objects.get(pk=criterion.pk).version == 2
    html = world.client.get(page).content.decode()
    assert "Your label is of version 1; the criterion is now version 2" in html


def test_staff_read_others_do_not_find_and_only_the_author_labels(world):
    page, label = urls(world)
    other = Client()
    other.force_login(get_user_model().objects.create_user("other"))
    assert other.get(page).status_code == 404 and other.get(label).status_code == 404
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("staff", is_staff=True))
    assert staff.get(page).status_code == 200 and staff.get(label).status_code == 403
    assert world.draft.question_id in staff.get(reverse("frontend:selfcheck")).content.decode()
    assert world.draft.question_id not in other.get(reverse("frontend:selfcheck")).content.decode()


def test_the_pages_are_chinese_when_chinese_is_asked_for(world):
    page, label = urls(world)
    zh = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}  # the messages the posts leave are Chinese too
    world.client.post(label, form(world, "1", "0", "0", action="submit"), **zh)
    revise = reverse("frontend:selfcheck-revise", args=[world.draft.pk, world.criteria[0].pk])
    world.client.post(revise, {"text": "回应了疲惫", "points": "3", "reason": "更短"}, **zh)
    other = reverse("frontend:selfcheck-label", args=[world.draft.pk, world.responses["ref-b"].pk])
    problems = []
    for url in (reverse("frontend:selfcheck"), page, other):
        html = world.client.get(url, **zh).content.decode()
        problems += [f"{url}: {text}" for text in untranslated(html, data=("judge-zeta",))]
    assert not problems


def test_a_rubric_emptied_after_the_submit_says_so_instead_of_an_empty_table(world):
    page, label = urls(world)
    world.client.post(label, form(world, "1", "0", "0", action="submit"))
    for criterion in world.criteria:
        draft_criterion_remove(criterion=criterion, stage="self-check", reason="不可二元判断")
    html = world.client.get(page).content.decode()
    assert "The draft has no active criterion left to compare." in html
