"""Revising a submission while its unit waits for ratings, flagging it after, a senior's answer."""

import pytest

from annotation import services
from annotation.labels import InvalidLabels
from annotation.models import Assignment, Expert, Label, ReviewFlag, SubmissionVersion
from annotation.selectors import review as selectors_review
from annotation.selectors.adjudication import NotASenior
from annotation.selectors.review import Standing, submission_standing
from benchmark.models import AuditEvent
from tests.annotation.factories import ExpertFactory
from tests.annotation.helpers import all_labels
from tests.validation.factories import open_study
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
