"""Revising a submission while its unit waits for ratings, flagging it after, a senior's answer."""

import re
from datetime import timedelta

import pytest
from django.http import Http404
from django.utils import timezone

from annotation import services
from annotation.labels import InvalidLabels
from annotation.models import Assignment, Expert, Label, ReviewFlag, SubmissionVersion
from annotation.selectors import review as selectors_review
from annotation.selectors.adjudication import NotASenior, adjudication_tokens
from annotation.selectors.review import Standing, submission_standing
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from validation.models import GoldLabel

pytestmark = pytest.mark.django_db


def rate(expert, study, *, hit=True, note=""):
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    labels = [{**label, "note": note} for label in all_labels(assignment, hit=hit)]
    services.assignment_submit(assignment=assignment, labels=labels)
    return Assignment.objects.get(pk=assignment.pk)


def hits(assignment):
    return sorted(assignment.submission.labels.values_list("hit", flat=True))


@pytest.mark.parametrize(
    ("kind", "pool_open", "queued", "ratings", "flag_open", "expected"),
    [
        ("rating", True, False, 1, False, Standing.REVISABLE),
        ("rating", True, False, 2, False, Standing.REVISABLE),
        ("rating", True, False, 3, False, Standing.SETTLED),
        ("rating", False, False, 1, False, Standing.SETTLED),  # closed: whole unit to a senior
        ("rating", True, True, 2, False, Standing.SETTLED),  # queued for a senior
        ("rating", True, False, 3, True, Standing.FLAGGED),
        ("adjudication", True, False, 3, False, Standing.FIXED),
        ("calibration", True, False, 0, False, Standing.FIXED),
    ],
)
def test_what_a_rater_may_do_with_a_submitted_unit(
    kind, pool_open, queued, ratings, flag_open, expected
):
    assert (
        submission_standing(
            kind=kind,
            pool_open=pool_open,
            queued=queued,
            ratings=ratings,
            raters=3,
            flag_open=flag_open,
        )
        == expected
    )


def test_a_revision_replaces_the_labels_keeps_the_earlier_version_and_writes_an_audit_row():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    assignment = rate(expert, study, hit=True, note="first look")
    before = list(assignment.submission.labels.values_list("rubric_item_id", "hit", "note"))

    labels = all_labels(assignment, hit=False)
    labels[0]["note"] = "read it again"
    submission, changed = services.submission_revise(
        user=expert.user, assignment=assignment, labels=labels
    )

    assert changed and submission.version == 2
    # The first submission's time stays (today's capacity and the pay day count it); the
    # revision has its own.
    assert submission.submitted_at == assignment.submission.submitted_at
    assert submission.revised_at is not None and submission.revised_at >= submission.submitted_at
    assert set(hits(assignment)) == {False}
    kept = SubmissionVersion.objects.get(submission=submission)
    assert kept.version == 1
    assert sorted((x["item"], x["hit"], x["note"]) for x in kept.labels) == sorted(before)
    audit = AuditEvent.objects.get(action="rating.revise")
    assert audit.data["version"] == 2 and len(audit.data["items"]) == len(before)

    # The same labels again change nothing and keep no second copy.
    _, again = services.submission_revise(user=expert.user, assignment=assignment, labels=labels)
    assert not again
    assert SubmissionVersion.objects.count() == 1
    assert AuditEvent.objects.filter(action="rating.revise").count() == 1


def test_gold_is_made_of_the_revised_labels(django_capture_on_commit_callbacks):
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts)
    first = rate(experts[0], study, hit=True)
    services.submission_revise(
        user=experts[0].user, assignment=first, labels=all_labels(first, hit=False)
    )
    with django_capture_on_commit_callbacks(execute=True):
        rate(experts[1], study, hit=False)
        rate(experts[2], study, hit=False)
    gold = GoldLabel.objects.filter(study_unit__study=study)
    assert gold.exists()
    assert {(g.hit, g.provenance) for g in gold} == {(False, "3/3")}


def test_no_revision_once_the_unit_has_all_its_ratings():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts)
    first = rate(experts[0], study, hit=True)
    rate(experts[1], study)
    rate(experts[2], study)
    with pytest.raises(services.AnnotationError, match="can no longer be revised"):
        services.submission_revise(
            user=experts[0].user, assignment=first, labels=all_labels(first, hit=False)
        )
    assert set(hits(first)) == {True}
    assert not SubmissionVersion.objects.exists()


def test_no_revision_after_the_study_closed_nor_of_another_experts_work():
    expert, other = ExpertFactory.create_batch(2)
    study = open_study(cases=2, experts=[expert, other])
    mine = rate(expert, study)
    with pytest.raises(services.AnnotationError, match="no such assignment"):
        services.submission_revise(
            user=other.user, assignment=mine, labels=all_labels(mine, hit=False)
        )
    services.pool_set_status(pool=study.pool, status="closed")
    with pytest.raises(services.AnnotationError, match="can no longer be revised"):
        services.submission_revise(
            user=expert.user, assignment=mine, labels=all_labels(mine, hit=False)
        )
    assert set(hits(mine)) == {True}


def test_bad_revised_labels_are_refused_and_nothing_changes():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    assignment = rate(expert, study)
    with pytest.raises(InvalidLabels, match="criteria have no label"):
        services.submission_revise(
            user=expert.user, assignment=assignment, labels=all_labels(assignment)[:-1]
        )
    assert assignment.submission.version == 1 and not SubmissionVersion.objects.exists()
    assert Label.objects.filter(submission=assignment.submission, hit=True).count() == len(
        all_labels(assignment)
    )


@pytest.fixture
def settled():
    """A unit with its three ratings in, and a senior of the study who did not rate it."""
    experts = ExpertFactory.create_batch(3)
    senior = ExpertFactory(tier=Expert.Tier.SENIOR)
    study = open_study(cases=1, experts=[*experts, senior])
    rated = [
        rate(e, study, hit=h, note=f"n{i}")
        for i, (e, h) in enumerate(zip(experts, [True, True, False], strict=True))
    ]
    return experts, senior, rated


def test_a_rater_flags_a_settled_unit_once_and_a_senior_answers(settled):
    experts, senior, rated = settled
    with pytest.raises(services.AnnotationError, match="say why"):
        services.submission_flag(user=experts[2].user, assignment=rated[2], reason="  ")
    flag = services.submission_flag(
        user=experts[2].user, assignment=rated[2], reason="the response does name the feeling"
    )
    with pytest.raises(services.AnnotationError, match="already flagged"):
        services.submission_flag(user=experts[2].user, assignment=rated[2], reason="again")
    assert AuditEvent.objects.filter(action="rating.flag").count() == 1

    assert list(selectors_review.flags_open_for_senior(user=senior.user)) == [flag]
    shown = selectors_review.flag_get_for_senior(user=senior.user, flag_id=flag.pk)
    # The flagging rater's own labels and notes, under no name; never another rater's.
    assert {label.note for label in shown.labels} == {"n2"}
    gold_before = list(GoldLabel.objects.values_list("rubric_item_id", "hit", "provenance"))

    answered = services.flag_answer(
        user=senior.user, flag_id=flag.pk, upheld=False, answer="two of three said met"
    )
    assert answered.status == ReviewFlag.Status.DISMISSED and answered.resolved_by == senior
    assert AuditEvent.objects.filter(action="flag.answer").count() == 1
    with pytest.raises(services.AnnotationError, match="answered already"):
        services.flag_answer(user=senior.user, flag_id=flag.pk, upheld=True, answer="changed")
    assert list(GoldLabel.objects.values_list("rubric_item_id", "hit", "provenance")) == (
        gold_before
    )
    review = selectors_review.submission_review_for_expert(
        user=experts[2].user, public_id=rated[2].public_id
    )
    assert review.flags[0].answer == "two of three said met"
    assert review.standing == Standing.SETTLED  # may flag again after an answer


def test_a_flag_waits_until_the_unit_is_settled():
    lone = ExpertFactory()
    study = open_study(cases=1, experts=[lone])
    waiting = rate(lone, study)
    with pytest.raises(services.AnnotationError, match="revise it"):
        services.submission_flag(user=lone.user, assignment=waiting, reason="doubt")
    assert not ReviewFlag.objects.exists()


def test_only_a_senior_who_did_not_rate_the_unit_answers_its_flag(settled):
    experts, _, rated = settled
    flag = services.submission_flag(user=experts[0].user, assignment=rated[0], reason="doubt")
    with pytest.raises(NotASenior):
        services.flag_answer(user=experts[1].user, flag_id=flag.pk, upheld=True, answer="x")
    rater_senior = experts[1]
    rater_senior.tier = Expert.Tier.SENIOR
    rater_senior.save()
    assert not selectors_review.flags_open_for_senior(user=rater_senior.user).exists()
    with pytest.raises(services.AnnotationError, match="not yours"):
        services.flag_answer(user=rater_senior.user, flag_id=flag.pk, upheld=True, answer="x")
    assert ReviewFlag.objects.get().status == ReviewFlag.Status.OPEN


# --- a flag never reaches the unit's adjudicator (DESIGN: blindness; docs/architecture.md) ---


def _awaiting_unit():
    """A unit split on its catastrophic criterion, waiting for a senior; two seniors."""
    from tests.builders.adjudication import split_study

    study, raters, senior = split_study(splits=["catastrophic"], name="flagged")
    other = ExpertFactory(tier=Expert.Tier.SENIOR)
    study.pool.experts.add(other)
    rated = Assignment.objects.get(expert=raters[0], kind=Assignment.Kind.RATING)
    return study, raters, senior, other, rated


def _decide(assignment):
    decisions = [
        {"criterion": token, "hit": False, "reason": "read the response again"}
        for token in adjudication_tokens(assignment=assignment)
    ]
    services.adjudication_submit(assignment=assignment, decisions=decisions)


def test_a_flag_filed_before_the_claim_is_read_by_no_senior_until_the_unit_is_decided():
    study, raters, senior, other, rated = _awaiting_unit()
    flag = services.submission_flag(
        user=raters[0].user, assignment=rated, reason="please mark catastrophic as met"
    )
    # Waiting for a senior: no senior reads the rater's labels, notes or reason.
    for s in (senior, other):
        assert not selectors_review.flags_open_for_senior(user=s.user).exists()
        with pytest.raises(Http404):
            selectors_review.flag_get_for_senior(user=s.user, flag_id=flag.pk)
        with pytest.raises(services.AnnotationError):
            services.flag_answer(user=s.user, flag_id=flag.pk, upheld=True, answer="x")
    claimed = services.adjudication_claim_next(user=senior.user, pool=study.pool)
    assert claimed is not None
    _decide(claimed)
    # Decided: the adjudicator never reads it; the other senior now may, and answers it.
    assert not selectors_review.flags_open_for_senior(user=senior.user).exists()
    assert list(selectors_review.flags_open_for_senior(user=other.user)) == [flag]
    services.flag_answer(user=other.user, flag_id=flag.pk, upheld=False, answer="gold stands")


def test_a_flag_filed_after_the_claim_stays_hidden_from_the_senior_holding_the_unit():
    study, raters, senior, other, rated = _awaiting_unit()
    claimed = services.adjudication_claim_next(user=senior.user, pool=study.pool)
    flag = services.submission_flag(user=raters[0].user, assignment=rated, reason="look again")
    assert not selectors_review.flags_open_for_senior(user=senior.user).exists()
    assert not selectors_review.flags_open_for_senior(user=other.user).exists()
    # The holder's lease runs out; the other senior takes the unit, still without the flag.
    assert claimed is not None
    later = timezone.now() + timedelta(days=1)
    taken = services.adjudication_claim_next(user=other.user, pool=study.pool, now=later)
    assert taken is not None and taken.unit_id == rated.unit_id
    assert not selectors_review.flags_open_for_senior(user=other.user).exists()
    _decide(taken)
    assert list(selectors_review.flags_open_for_senior(user=senior.user)) == [flag]
    assert not selectors_review.flags_open_for_senior(user=other.user).exists()


def test_a_senior_who_answered_a_flag_on_a_unit_never_claims_its_adjudication():
    study, raters, senior, other, rated = _awaiting_unit()
    flag = services.submission_flag(user=raters[0].user, assignment=rated, reason="look again")
    # Even a flag read some other way (answered by the admin's hand, say): the claim refuses.
    ReviewFlag.objects.filter(pk=flag.pk).update(
        status=ReviewFlag.Status.DISMISSED, resolved_by=other, answer="read it"
    )
    assert services.adjudication_claim_next(user=other.user, pool=study.pool) is None
    assert services.adjudication_claim_next(user=senior.user, pool=study.pool) is not None


def test_a_flag_no_senior_may_read_is_shown_to_the_admin_with_why(admin_client):
    study, raters, senior, other, rated = _awaiting_unit()
    flag = services.submission_flag(user=raters[0].user, assignment=rated, reason="look again")

    def shown():
        body = admin_client.get("/admin/dashboard/").content.decode()
        return re.findall(r'data-alert="unread-flag" data-reason="(\w+)"', body), body

    reasons, body = shown()
    assert reasons == ["decision"], body
    claimed = services.adjudication_claim_next(user=senior.user, pool=study.pool)
    _decide(claimed)
    # The other senior may read it now: nothing to tell the admin.
    assert shown()[0] == []
    # The only senior left is the one who decided: the flag would never land.
    other.is_active = False
    other.save()
    reasons, body = shown()
    assert reasons == ["no_senior"] and "every active senior of the study" in body
    assert selectors_review.flags_unread(pool_ids=[study.pool_id])[0].flag == flag
