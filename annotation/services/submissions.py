"""Recording a submission: a rater's labels, a calibration sitting's, a senior's decisions.

Every kind is recorded by ``_record`` in one transaction: the assignment locked, a repeated
request answered with the stored submission (a different one refused), the lease held, the
submission and its labels stored with the criterion versions shown, the assignment closed,
its draft dropped, the pay booked and an audit row written; then what the kind sets off
(``_AFTER``). A new kind of expert work adds its entry point here and its entry in ``_AFTER``.
"""

from collections.abc import Callable, Mapping
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation import events, selectors
from annotation.active_time import active_seconds_parse
from annotation.decisions import decisions_parse
from annotation.labels import LabelValue, label_versions, labels_parse
from annotation.models import Assignment, Draft, Label, Submission, Unit
from annotation.selectors import adjudication as queue
from annotation.services.agreement import unit_record_peer_agreement
from annotation.services.calibration import calibration_finish_if_complete
from annotation.services.errors import AnnotationError, SubmissionConflict
from annotation.services.leases import lease_hold
from annotation.services.locks import assignments_locked, units_locked
from annotation.services.pay import pay_rate_annotations, pay_record_earning
from benchmark.audit_actions import AuditAction
from benchmark.selectors.rubric import rubric_item_versions
from benchmark.services.audit import audit_record


def assignment_submit(
    *,
    assignment: Assignment,
    labels: object,
    active_seconds: int | None = None,
    now: datetime | None = None,
) -> tuple[Submission, bool]:
    """Record the expert's complete labels once; returns (submission, created).

    Repeating the identical submission returns the stored one (created=False); a different
    one is refused with SubmissionConflict. Labels are never edited afterwards.
    ``active_seconds`` is the active time on the unit (``annotation.active_time``; None: not
    measured), stored with the submission; a repeat keeps the first figure.
    """
    if assignment.kind == Assignment.Kind.ADJUDICATION:
        # Decisions need a reason each and cover only the criteria to decide.
        raise AnnotationError(gettext("adjudications are decided in the senior queue"))
    tokens = selectors.criterion_tokens(assignment=assignment)
    parsed = labels_parse(labels, criteria=tokens, complete=True)
    wanted = {tokens[token]: value for token, value in parsed.items()}
    return _record(
        assignment=assignment,
        wanted=wanted,
        active_seconds=active_seconds_parse(active_seconds),
        now=now or timezone.now(),
        conflict=gettext("this assignment was already submitted with other labels"),
        audit={"slot": assignment.slot, "labels": len(wanted)},
        versions=selectors.criterion_versions(assignment=assignment),
    )


def adjudication_submit(
    *, assignment: Assignment, decisions: object, now: datetime | None = None
) -> tuple[Submission, bool]:
    """Record a senior's decisions (met / not met and a reason per criterion) once.

    Returns (submission, created); the identical request again returns the stored one, a
    different one is refused. The reason is stored as the label's note and the label keeps
    the criterion version the senior decided on. Gold follows after commit.
    """
    if assignment.kind != Assignment.Kind.ADJUDICATION:
        raise AnnotationError(gettext("this assignment is not an adjudication"))
    tokens = queue.adjudication_tokens(assignment=assignment)
    parsed = decisions_parse(decisions, criteria=tokens)
    wanted = {tokens[token]: value for token, value in parsed.items()}
    return _record(
        assignment=assignment,
        wanted=wanted,
        active_seconds=None,
        now=now or timezone.now(),
        conflict=gettext("this unit was already adjudicated with other decisions"),
        audit={"decisions": {str(pk): value.hit for pk, value in wanted.items()}},
        versions=None,
    )


def submission_labels_equal(submission: Submission, wanted: dict[int, LabelValue]) -> bool:
    """Whether the submission holds exactly these labels (a repeated request sends them again)."""
    stored = {
        label.rubric_item_id: LabelValue(hit=label.hit, note=label.note)
        for label in submission.labels.all()
    }
    return stored == wanted


def submission_labels_write(
    *,
    submission: Submission,
    wanted: dict[int, LabelValue],
    versions: Mapping[int, int] | None = None,
) -> None:
    """Store a rater's labels, each with the criterion version the expert was shown.
    ``versions``: the criteria's current versions when the caller has read them already."""
    current = rubric_item_versions(item_ids=wanted) if versions is None else versions
    shown = label_versions(wanted, current=current)
    Label.objects.bulk_create(
        Label(
            submission=submission,
            rubric_item_id=pk,
            hit=bool(v.hit),
            note=v.note,
            rubric_version=shown[pk],
        )
        for pk, v in wanted.items()
    )


def unit_lock_count_ratings(*, unit_id: int) -> int:
    """The unit's rating submissions, counted under the unit's row lock.

    Submits and revisions on one unit count its ratings one after another (on SQLite every
    write is serialised anyway), so exactly one submit sees the unit complete however close
    together they commit, and no revision slips in after the last rating.
    """
    units_locked().only("pk").get(pk=unit_id)
    return Submission.objects.filter(unit_id=unit_id, kind=Assignment.Kind.RATING).count()


def _record(
    *,
    assignment: Assignment,
    wanted: dict[int, LabelValue],
    active_seconds: int | None,
    now: datetime,
    conflict: str,
    audit: dict[str, object],
    versions: Mapping[int, int] | None,
) -> tuple[Submission, bool]:
    with transaction.atomic():
        assignment = (
            assignments_locked()
            .select_related("pool", "expert__user")
            .annotate(**pay_rate_annotations())
            .get(pk=assignment.pk)
        )
        if assignment.status == Assignment.Status.SUBMITTED:
            submission = assignment.submission
            if submission_labels_equal(submission, wanted):
                return submission, False
            raise SubmissionConflict(conflict)
        if assignment.status != Assignment.Status.LEASED:
            lease_hold(assignment=assignment, now=now)  # win back an expired lease, or refuse
        submission = Submission.objects.create(
            assignment=assignment,
            unit_id=assignment.unit_id,
            expert_id=assignment.expert_id,
            kind=assignment.kind,
            slot=assignment.slot,
            active_seconds=active_seconds,
        )
        submission_labels_write(submission=submission, wanted=wanted, versions=versions)
        assignment.status = Assignment.Status.SUBMITTED
        assignment.submitted_at = now
        assignment.save(update_fields=["status", "submitted_at"])
        Draft.objects.filter(assignment=assignment).delete()
        pay_record_earning(
            submission=submission,
            pool=assignment.pool,
            expert=assignment.expert,
            amount=assignment.pay_amount,
            currency=assignment.pay_currency,
        )
        audit_record(
            actor=assignment.expert.user,
            action=AuditAction(f"{assignment.kind}.submit"),
            obj=submission,
            data={"assignment": str(assignment.public_id), "unit": assignment.unit_id, **audit},
        )
        _AFTER[assignment.kind](assignment=assignment, now=now)
    return submission, True


def _rating_recorded(*, assignment: Assignment, now: datetime) -> None:
    """The unit's last rating: peer agreement, then the unit is announced rated (in this
    transaction) and complete (after it commits)."""
    done = unit_lock_count_ratings(unit_id=assignment.unit_id)
    if done >= assignment.pool.raters_per_unit:
        Unit.objects.filter(pk=assignment.unit_id).update(ratings_complete=True)
        if done >= 2:  # agreement needs another rater
            unit_record_peer_agreement(unit_id=assignment.unit_id, pool_id=assignment.pool_id)
        events.unit_rated(assignment.unit_id)
        events.unit_complete(assignment.unit_id)


def _calibration_recorded(*, assignment: Assignment, now: datetime) -> None:
    calibration_finish_if_complete(attempt=assignment.attempt, now=now)


def _decision_recorded(*, assignment: Assignment, now: datetime) -> None:
    events.unit_complete(assignment.unit_id)


_AFTER: dict[str, Callable[..., None]] = {
    Assignment.Kind.RATING: _rating_recorded,
    Assignment.Kind.CALIBRATION: _calibration_recorded,
    Assignment.Kind.ADJUDICATION: _decision_recorded,
}
