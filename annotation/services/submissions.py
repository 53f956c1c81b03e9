"""Recording a submission: a rater's labels, a calibration sitting's, a senior's decisions.

Every kind is recorded by ``_record`` in one transaction: the assignment closed (leased →
submitted, its draft cleared) by the conditional UPDATE that also locks it, the submission
and its labels stored with the criterion versions shown, the pay booked and an audit row
written; then what the kind sets off (``_AFTER``). An assignment that is not leased any more
(a repeated request, a lease that ran out or was lost) is decided under its lock: the stored
submission answered (a different one refused), the lease won back or refused. A new kind of
expert work adds its entry point here and its entry in ``_AFTER``.
"""

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import NamedTuple

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation import events, selectors
from annotation.active_time import active_seconds_parse
from annotation.audit_actions import AnnotationAction
from annotation.decisions import decisions_parse
from annotation.labels import InvalidLabels, LabelValue, label_versions, labels_parse
from annotation.models import Assignment, Label, PairwiseChoice, Pool, PoolTally, Submission, Unit
from annotation.pairwise import Choice, choice_parse
from annotation.selectors import adjudication as queue
from annotation.selectors.pay import pay_rate_annotations
from annotation.services.agreement import unit_record_pair_agreement, unit_record_peer_agreement
from annotation.services.calibration import calibration_finish_if_complete
from annotation.services.errors import AnnotationError, SubmissionConflict
from annotation.services.inserts import row_update, rows_insert
from annotation.services.leases import lease_hold
from annotation.services.locks import assignment_lock, units_locked
from annotation.services.pay import pay_record_earning
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
    if _pairwise(assignment):
        raise InvalidLabels(gettext("this unit is a pair of responses: send a choice"))
    tokens = selectors.criterion_tokens(assignment=assignment)
    parsed = labels_parse(labels, criteria=tokens, complete=True)
    wanted = {tokens[token]: value for token, value in parsed.items()}
    versions = selectors.criterion_versions(assignment=assignment)
    return _record(
        assignment=assignment,
        answer=_Labels(wanted, submission_labels_shown(wanted=wanted, versions=versions)),
        active_seconds=active_seconds_parse(active_seconds),
        now=now or timezone.now(),
        conflict=gettext("this assignment was already submitted with other labels"),
        audit={"slot": assignment.slot, "labels": len(wanted)},
    )


def pairwise_choice_submit(
    *,
    assignment: Assignment,
    choice: object,
    reason: object = None,
    active_seconds: int | None = None,
    decision: bool = False,
    now: datetime | None = None,
) -> tuple[Submission, bool]:
    """Record the expert's choice on a pair once (``annotation.pairwise``: ``a`` is the
    response shown first); returns (submission, created) as ``assignment_submit`` does, the
    identical choice again answered with the stored one, a different one refused. A senior's
    ``decision`` settles a pair its raters split three ways, and needs its reason."""
    if not _pairwise(assignment):
        raise InvalidLabels(gettext("this unit is not a pair of responses: send labels"))
    if decision != (assignment.kind == Assignment.Kind.ADJUDICATION):
        raise AnnotationError(
            gettext("this assignment is not an adjudication")
            if decision
            else gettext("adjudications are decided in the senior queue")
        )
    parsed = choice_parse(
        choice=choice, reason=reason, shuffle_seed=assignment.shuffle_seed, reason_required=decision
    )
    return _record(
        assignment=assignment,
        answer=_Choice(parsed),
        active_seconds=active_seconds_parse(active_seconds),
        now=now or timezone.now(),
        conflict=gettext("this assignment was already submitted with another choice"),
        audit={"slot": assignment.slot, "winner": parsed.winner},
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
        answer=_Labels(wanted, submission_labels_shown(wanted=wanted)),
        active_seconds=None,
        now=now or timezone.now(),
        conflict=gettext("this unit was already adjudicated with other decisions"),
        audit={"decisions": {str(pk): value.hit for pk, value in wanted.items()}},
    )


def submission_labels_equal(submission: Submission, wanted: dict[int, LabelValue]) -> bool:
    """Whether the submission holds exactly these labels (a repeated request sends them again)."""
    stored = {
        label.rubric_item_id: LabelValue(hit=label.hit, note=label.note)
        for label in submission.labels.all()
    }
    return stored == wanted


def submission_labels_shown(
    *, wanted: dict[int, LabelValue], versions: Mapping[int, int] | None = None
) -> dict[int, int]:
    """The criterion version each label was given on, checked against the criteria's current
    versions (``versions`` when the caller has read them already); InvalidLabels for a
    version a criterion never had."""
    current = rubric_item_versions(item_ids=wanted) if versions is None else versions
    return label_versions(wanted, current=current)


def submission_labels_write(
    *,
    submission: Submission,
    wanted: dict[int, LabelValue],
    shown: Mapping[int, int] | None = None,
) -> None:
    """Store a rater's labels, each with the criterion version the expert was shown.
    ``shown``: ``submission_labels_shown`` when the caller checked them before writing."""
    shown = submission_labels_shown(wanted=wanted) if shown is None else shown
    rows_insert(
        Label,
        ("submission_id", "rubric_item_id", "hit", "note", "rubric_version"),
        ((submission.pk, pk, bool(v.hit), v.note, shown[pk]) for pk, v in wanted.items()),
    )


def unit_lock_count_ratings(*, unit_id: int) -> int:
    """The unit's rating submissions (its counter), read under the unit's row lock.

    A revision reads it so, after any submit on the unit that committed first (on PostgreSQL
    a locking read that waited returns the row's newest version), so no revision slips in
    after the last rating.
    """
    return units_locked().values_list("ratings", flat=True).get(pk=unit_id)


def unit_count_rating(*, unit_id: int, raters: int) -> int:
    """One more rating submission on the unit: its counter goes up, and ``ratings_complete``
    is set when it reaches ``raters``, in one UPDATE that locks the unit; returns the count.

    PostgreSQL applies an UPDATE to the newest version of a row another transaction changed
    (it waits for that one to end) and SQLite runs one writer at a time, so submits on one
    unit count one after another and exactly one of them sees the unit complete.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {connection.ops.quote_name(Unit._meta.db_table)} "
            "SET ratings = ratings + 1, ratings_complete = (ratings_complete OR ratings + 1 >= %s) "
            "WHERE id = %s RETURNING ratings",
            [raters, unit_id],
        )
        return cursor.fetchone()[0]


def pool_count_complete(*, pool_id: int, unit_id: int) -> None:
    """One more unit of the pool has all its ratings: the tally of its shard goes up (made at
    the first), in one statement. Called last in the submit's transaction, so the row is held
    only until it commits (``PoolTally``)."""
    table = connection.ops.quote_name(PoolTally._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (pool_id, shard, units_complete) VALUES (%s, %s, 1) "
            f"ON CONFLICT (pool_id, shard) "
            f"DO UPDATE SET units_complete = {table}.units_complete + 1",
            [pool_id, unit_id % PoolTally.SHARDS],
        )


def _with_pay_rate(assignment: Assignment) -> Assignment:
    """The assignment with its pool, expert and pay rate: as the API's scoped read gives it
    (``assignment_get_for_expert(pay_rate=True)``), or read again with them."""
    if "pay_amount" in assignment.__dict__:
        return assignment
    return (
        Assignment.objects.select_related("pool", "expert__user")
        .annotate(**pay_rate_annotations())
        .get(pk=assignment.pk)
    )


def _close(*, assignment: Assignment, now: datetime) -> bool:
    """Leased → submitted with the draft cleared, in one conditional UPDATE that row-locks the
    assignment until the transaction ends; False when it was not leased."""
    closed = row_update(
        Assignment,
        where={"id": assignment.pk, "status": Assignment.Status.LEASED},
        fields={
            "status": Assignment.Status.SUBMITTED,
            "submitted_at": now,
            "draft_labels": {},
            "draft_active_seconds": 0,
            "draft_saved_at": None,
        },
    )
    if closed:
        assignment.status, assignment.submitted_at = Assignment.Status.SUBMITTED, now
    return bool(closed)


class _Labels(NamedTuple):
    """A submission's labels, each with the criterion version shown (checked)."""

    wanted: dict[int, LabelValue]
    shown: Mapping[int, int]

    def same_as(self, submission: Submission) -> bool:
        return submission_labels_equal(submission, self.wanted)

    def write(self, submission: Submission) -> None:
        submission_labels_write(submission=submission, wanted=self.wanted, shown=self.shown)


class _Choice(NamedTuple):
    """A submission's choice on a pair."""

    choice: Choice

    def same_as(self, submission: Submission) -> bool:
        stored = PairwiseChoice.objects.filter(submission=submission).first()
        return stored is not None and (stored.winner, stored.reason) == (
            self.choice.winner,
            self.choice.reason,
        )

    def write(self, submission: Submission) -> None:
        PairwiseChoice.objects.create(
            submission=submission,
            winner=self.choice.winner,
            first_shown=self.choice.first_shown,
            reason=self.choice.reason,
        )


def _pairwise(assignment: Assignment) -> bool:
    return assignment.pool.question_type == Pool.QuestionType.PAIRWISE


def _record(
    *,
    assignment: Assignment,
    answer: _Labels | _Choice,
    active_seconds: int | None,
    now: datetime,
    conflict: str,
    audit: dict[str, object],
) -> tuple[Submission, bool]:
    # Everything that refuses the request is checked before the first write.
    assignment = _with_pay_rate(assignment)
    store = dict(answer=answer, active_seconds=active_seconds, now=now, audit=audit)
    # The lease still out, as almost always: closing the assignment is what locks it. Inside
    # a caller's transaction this block opens no savepoint: nothing in it refuses, and an
    # error in it (a failed settle) leaves the caller's transaction to be rolled back whole.
    with transaction.atomic(savepoint=False):
        if _close(assignment=assignment, now=now):
            return _store(assignment=assignment, **store), True
    with transaction.atomic():
        locked = assignment_lock(assignment_id=assignment.pk)
        if locked.status == Assignment.Status.SUBMITTED:
            submission = locked.submission
            if answer.same_as(submission):
                return submission, False
            raise SubmissionConflict(conflict)
        lease_hold(assignment=locked, now=now)  # win back an expired lease, or refuse
        _close(assignment=assignment, now=now)
        return _store(assignment=assignment, **store), True


def _store(
    *,
    assignment: Assignment,
    answer: _Labels | _Choice,
    active_seconds: int | None,
    now: datetime,
    audit: dict[str, object],
) -> Submission:
    """The submission of the just-closed assignment, its answer (labels or a choice), pay and
    audit row, and what its kind sets off, in the caller's transaction."""
    submission = Submission.objects.create(
        assignment=assignment,
        unit_id=assignment.unit_id,
        expert_id=assignment.expert_id,
        kind=assignment.kind,
        slot=assignment.slot,
        active_seconds=active_seconds,
    )
    answer.write(submission)
    pay_record_earning(
        submission=submission,
        pool=assignment.pool,
        expert=assignment.expert,
        amount=assignment.pay_amount,
        currency=assignment.pay_currency,
    )
    audit_record(
        actor=assignment.expert.user,
        action=AnnotationAction(f"{assignment.kind}.submit"),
        obj=submission,
        data={"assignment": str(assignment.public_id), "unit": assignment.unit_id, **audit},
    )
    _AFTER[assignment.kind](assignment=assignment, now=now)
    return submission


def _rating_recorded(*, assignment: Assignment, now: datetime) -> None:
    """The unit's last rating: peer agreement, then the unit is announced rated, in this
    transaction (where the study settles it: nothing is left for a task after the commit)."""
    raters = assignment.pool.raters_per_unit
    unit_id, pool_id = assignment.unit_id, assignment.pool_id
    done = unit_count_rating(unit_id=unit_id, raters=raters)
    if done >= raters:
        ratings = selectors.unit_rating_rows(unit_id=unit_id)  # read once, for both
        if done >= 2 and _pairwise(assignment):  # agreement: another rater's choice
            unit_record_pair_agreement(unit_id=unit_id, pool_id=pool_id)
        elif done >= 2:  # agreement: another rater's labels
            unit_record_peer_agreement(unit_id=unit_id, pool_id=pool_id, ratings=ratings)
        events.unit_rated(unit_id, ratings=ratings)
        pool_count_complete(pool_id=pool_id, unit_id=unit_id)


def _calibration_recorded(*, assignment: Assignment, now: datetime) -> None:
    calibration_finish_if_complete(attempt=assignment.attempt, now=now)


def _decision_recorded(*, assignment: Assignment, now: datetime) -> None:
    """The unit is announced decided in this transaction (where the study writes its gold)."""
    events.unit_decided(assignment.unit_id)


_AFTER: dict[str, Callable[..., None]] = {
    Assignment.Kind.RATING: _rating_recorded,
    Assignment.Kind.CALIBRATION: _calibration_recorded,
    Assignment.Kind.ADJUDICATION: _decision_recorded,
}
