"""A rater's second look at submitted work: revising it, flagging it, a senior's answer.

What a rater may do with a submitted unit is ``selectors_review.submission_standing``; these
services check it again under the unit's row lock, so a revision never slips in after the
unit's last rating (from then on its votes are what gold is made of).
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation import selectors
from annotation.audit_actions import AnnotationAction
from annotation.labels import MAX_NOTE_CHARS, labels_parse
from annotation.models import Assignment, Pool, ReviewFlag, Submission, SubmissionVersion
from annotation.selectors import adjudication as queue
from annotation.selectors.review import Standing, flags_open_for_senior, submission_standing
from annotation.services.errors import AnnotationError
from annotation.services.locks import assignment_lock
from annotation.services.submissions import (
    submission_labels_equal,
    submission_labels_write,
    unit_lock_count_ratings,
)
from benchmark.services.audit import audit_record


def _locked_standing(assignment: Assignment) -> tuple[Submission, Standing]:
    """The submission and what its rater may do, read under the assignment's and unit's locks."""
    if assignment.status != Assignment.Status.SUBMITTED:
        raise AnnotationError(gettext("this unit is not submitted yet; finish it in the workbench"))
    ratings = unit_lock_count_ratings(unit_id=assignment.unit_id)
    submission = Submission.objects.select_related("unit").get(assignment=assignment)
    standing = submission_standing(
        kind=assignment.kind,
        pool_open=assignment.pool.status == Pool.Status.OPEN,
        queued=submission.unit.needs_adjudication,
        ratings=ratings,
        raters=assignment.pool.raters_per_unit,
        flag_open=submission.flags.filter(status=ReviewFlag.Status.OPEN).exists(),
    )
    return submission, standing


def submission_revise(
    *, user, assignment: Assignment, labels: object, now: datetime | None = None
) -> tuple[Submission, bool]:
    """Replace the rater's labels while the unit still waits for ratings; returns
    (submission, changed).

    The labels as they stood are kept as an earlier version and the revision writes an audit
    row; the same labels again change nothing. Refused once the unit has all its ratings, is
    with a senior, or the study is closed.
    """
    now = now or timezone.now()
    if assignment.expert.user_id != user.pk:
        raise AnnotationError(gettext("no such assignment"))
    if assignment.unit.pair_id is not None:
        raise AnnotationError(
            gettext("a choice between two responses is final; flag it for review instead")
        )
    tokens = selectors.criterion_tokens(assignment=assignment)
    parsed = labels_parse(labels, criteria=tokens, complete=True)
    wanted = {tokens[token]: value for token, value in parsed.items()}
    with transaction.atomic():
        assignment = assignment_lock(assignment_id=assignment.pk)
        submission, standing = _locked_standing(assignment)
        if standing != Standing.REVISABLE:
            raise AnnotationError(
                gettext(
                    "this unit can no longer be revised: it has all its ratings, is with a "
                    "senior, or the study is closed; flag it for review instead"
                )
            )
        if submission_labels_equal(submission, wanted):
            return submission, False
        before = list(submission.labels.all())
        SubmissionVersion.objects.create(
            submission=submission,
            version=submission.version,
            labels=[
                {
                    "item": label.rubric_item_id,
                    "hit": label.hit,
                    "note": label.note,
                    "rubric_version": label.rubric_version,
                }
                for label in before
            ],
            active_seconds=submission.active_seconds,
            submitted_at=submission.revised_at or submission.submitted_at,
        )
        changed = sorted(
            label.rubric_item_id
            for label in before
            if (label.hit, label.note)
            != (wanted[label.rubric_item_id].hit, wanted[label.rubric_item_id].note)
        )
        submission.labels.all().delete()
        submission_labels_write(submission=submission, wanted=wanted)
        submission.version += 1
        submission.revised_at = now
        submission.save(update_fields=["version", "revised_at"])
        audit_record(
            actor=user,
            action=AnnotationAction.RATING_REVISE,
            obj=submission,
            data={"unit": submission.unit_id, "version": submission.version, "items": changed},
        )
    return submission, True


def _text(value: object, *, what: str) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise AnnotationError(gettext("%(what)s: say why, in a few words") % {"what": what})
    if len(text) > MAX_NOTE_CHARS:
        raise AnnotationError(
            gettext("%(what)s: at most %(max)d characters") % {"what": what, "max": MAX_NOTE_CHARS}
        )
    return text


def submission_flag(*, user, assignment: Assignment, reason: object) -> ReviewFlag:
    """Ask a senior to look again at a settled unit the rater rated, with a reason."""
    if assignment.expert.user_id != user.pk:
        raise AnnotationError(gettext("no such assignment"))
    reason = _text(reason, what=gettext("reason"))
    with transaction.atomic():
        assignment = assignment_lock(assignment_id=assignment.pk)
        submission, standing = _locked_standing(assignment)
        if standing == Standing.FLAGGED:
            raise AnnotationError(gettext("this unit is already flagged; a senior will answer"))
        if standing != Standing.SETTLED:
            raise AnnotationError(
                gettext("only a rating whose unit has all its ratings can be flagged; revise it")
                if standing == Standing.REVISABLE
                else gettext("only ratings can be flagged for review")
            )
        flag = ReviewFlag.objects.create(submission=submission, reason=reason)
        audit_record(
            actor=user,
            action=AnnotationAction.RATING_FLAG,
            obj=flag,
            data={"unit": submission.unit_id, "submission": submission.pk},
        )
    return flag


def flag_answer(
    *, user, flag_id: int, upheld: bool, answer: object, now: datetime | None = None
) -> ReviewFlag:
    """A senior's answer to a flag: the gold is questioned (upheld) or stands, with a reason.

    Gold is never rewritten here: an upheld flag records, for the study's admins, that a
    senior doubts the unit's gold.
    """
    now = now or timezone.now()
    senior = queue.senior_for_user(user=user)
    answer = _text(answer, what=gettext("answer"))
    with transaction.atomic():
        flag = (
            flags_open_for_senior(user=user)
            .select_for_update(of=("self",))
            .filter(pk=flag_id)
            .first()
        )
        if flag is None:
            raise AnnotationError(gettext("this flag was answered already or is not yours"))
        flag.status = ReviewFlag.Status.UPHELD if upheld else ReviewFlag.Status.DISMISSED
        flag.answer = answer
        flag.resolved_by = senior
        flag.resolved_at = now
        flag.save(update_fields=["status", "answer", "resolved_by", "resolved_at"])
        audit_record(
            actor=user,
            action=AnnotationAction.FLAG_ANSWER,
            obj=flag,
            data={"unit": flag.submission.unit_id, "status": flag.status},
        )
    return flag
