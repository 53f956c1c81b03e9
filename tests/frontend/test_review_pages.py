"""The expert's completed work: search, one unit's review, revising, flagging, a senior's answer."""

import re

import pytest
from django.test import Client

from annotation import selectors, services
from annotation.models import Assignment, Expert, ReviewFlag
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def rate(expert, study, *, hit=True, note=""):
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    labels = [{**label, "note": note} for label in all_labels(assignment, hit=hit)]
    services.assignment_submit(assignment=assignment, labels=labels)
    return Assignment.objects.get(pk=assignment.pk)


def test_completed_work_is_searchable_by_token_study_and_note():
    expert = ExpertFactory()
    study = open_study(cases=2, experts=[expert])
    first = rate(expert, study, note="很有共情")
    second = rate(expert, study, note="plain")
    client = logged_in(expert.user)
    everything = client.get("/done/").content.decode()
    assert first.unit.token in everything and second.unit.token in everything
    assert "can be revised" in everything

    by_note = client.get("/done/", {"q": "共情"}).content.decode()
    assert first.unit.token in by_note and second.unit.token not in by_note
    # Another rater's note on the second unit does not make it match.
    other = ExpertFactory()
    study.pool.experts.add(other)
    services.unit_route_to_expert(unit=second.unit, expert=other, actor=None)
    rate(other, study, note="别人的备注")
    assert second.unit.token not in client.get("/done/", {"q": "别人的备注"}).content.decode()
    by_token = client.get("/done/", {"q": second.unit.token}).content.decode()
    assert second.unit.token in by_token and first.unit.token not in by_token
    assert study.name in client.get("/done/", {"q": "study-a"}).content.decode()
    nothing = client.get("/done/", {"q": "<b>no such</b>"}).content.decode()
    assert "None of your submitted units matches" in nothing
    assert "<b>no such</b>" not in nothing  # shown as text, never as markup


def _field_names(page: str) -> list[str]:
    return sorted(set(re.findall(r'name="hit-([^"]+)"', page)))


def test_a_rater_revises_from_the_page_and_sees_only_their_own_labels():
    experts = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=experts)
    mine = rate(experts[0], study, hit=True, note="my own note")
    rate(experts[1], study, hit=False, note="someone else's note")
    client = logged_in(experts[0].user)
    url = f"/done/{mine.public_id}/"
    page = client.get(url).content.decode()
    assert "my own note" in page and "someone else's note" not in page
    ids = _field_names(page)
    assert set(ids) == set(selectors.criterion_tokens(assignment=mine))

    # A criterion left without a mark: refused with a reason, nothing changed.
    incomplete = {
        "action": "revise",
        **{f"hit-{i}": "0" for i in ids[1:]},
        f"note-{ids[1]}": "kept",
    }
    refused = client.post(url, incomplete)
    assert refused.status_code == 400 and "1 criteria have no label" in refused.content.decode()
    assert ">kept</textarea>" in refused.content.decode()  # what was typed is still there
    assert set(mine.submission.labels.values_list("hit", flat=True)) == {True}

    form = {"action": "revise", **{f"hit-{i}": "0" for i in ids}, f"note-{ids[0]}": "changed"}
    after = client.post(url, form, follow=True).content.decode()
    assert "Your revision is saved" in after and "version 2" in after
    assert set(mine.submission.labels.values_list("hit", flat=True)) == {False}
    assert "version 1, submitted" in after  # the earlier version is listed


def test_another_expert_cannot_open_or_change_my_submitted_unit():
    expert, other = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=[expert, other])
    mine = rate(expert, study)
    client = logged_in(other.user)
    assert client.get(f"/done/{mine.public_id}/").status_code == 404
    assert client.post(
        f"/done/{mine.public_id}/", {"action": "flag", "reason": "x"}
    ).status_code == (404)
    assert logged_in(expert.user).get("/done/not-a-uuid/").status_code == 404


def test_flag_from_the_page_answered_in_the_senior_queue():
    experts = ExpertFactory.create_batch(3)
    senior = ExpertFactory(tier=Expert.Tier.SENIOR)
    study = open_study(cases=1, experts=[*experts, senior])
    rated = [rate(e, study, hit=h) for e, h in zip(experts, [True, True, False], strict=True)]
    rater = logged_in(experts[2].user)
    url = f"/done/{rated[2].public_id}/"
    page = rater.get(url).content.decode()
    assert "all ratings in" in page and 'name="hit-' not in page  # no revising any more
    empty = rater.post(url, {"action": "flag", "reason": ""})
    assert empty.status_code == 400 and not ReviewFlag.objects.exists()
    flagged = rater.post(url, {"action": "flag", "reason": "它确实回应了情绪"}, follow=True)
    assert "a senior expert will look at it" in flagged.content.decode()

    desk = logged_in(senior.user)
    home = desk.get("/adjudicate/").content.decode()
    flag = ReviewFlag.objects.get()
    assert f"/adjudicate/flags/{flag.pk}/" in home and "它确实回应了情绪" in home
    shown = desk.get(f"/adjudicate/flags/{flag.pk}/").content.decode()
    assert rated[2].unit.token in shown and experts[2].user.username not in shown
    assert desk.post(f"/adjudicate/flags/{flag.pk}/", {"verdict": "maybe"}).status_code == 400
    done = desk.post(
        f"/adjudicate/flags/{flag.pk}/",
        {"verdict": "upheld", "answer": "I doubt the gold too"},
        follow=True,
    ).content.decode()
    assert "Your answer is recorded" in done and "No rater has flagged" in done
    assert "I doubt the gold too" in rater.get(url).content.decode()
    # An answered flag is no longer open to anyone.
    assert desk.get(f"/adjudicate/flags/{flag.pk}/").status_code == 404
    # Raters are not seniors: the flag page is closed to them.
    assert rater.get(f"/adjudicate/flags/{flag.pk}/").status_code == 403


def test_admins_see_flags_answers_and_earlier_versions():
    from django.contrib.auth import get_user_model

    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts)
    rated = [rate(e, study, hit=True) for e in experts]
    services.submission_flag(user=experts[0].user, assignment=rated[0], reason="doubt: 共情不足")
    admin = get_user_model().objects.create_superuser("boss", password="x-long-password-1")
    client = logged_in(admin)
    flags = client.get("/admin/annotation/reviewflag/").content.decode()
    assert rated[0].unit.token in flags
    assert (
        "共情不足"
        in client.get(
            f"/admin/annotation/reviewflag/{ReviewFlag.objects.get().pk}/change/"
        ).content.decode()
    )
    assert (
        client.get(f"/admin/annotation/submission/{rated[0].submission.pk}/change/").status_code
        == 200
    )
