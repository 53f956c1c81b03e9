"""The next-unit claim: which unit an expert gets, in which rater slot.

Concurrency: a rating claim takes a slot in one statement (``_claim_slot``: ``INSERT ...
SELECT ... ON CONFLICT DO NOTHING RETURNING``) and locks no unit: the partial unique
constraints on ``Assignment`` (one holder per rater slot, one active rating per expert and
unit, one open lease per expert and pool) are the last word on both databases, and a claim
they refuse gets nothing back and tries the next unit of its window. So claimers asking at
once never wait for one another's unit locks, and nothing is left to roll back.

Work without a rater slot (the senior queue's adjudication: ``claim_first_free``) still locks
each unit it tries: on PostgreSQL under ``select_for_update(skip_locked=True)`` first, so
seniors asking at once spread over the queue, then waiting for the units found held. Each
unit is locked inside a savepoint that is rolled back unless it is claimed, so a waiting
claim holds no unit lock another could wait for. SQLite has no row locks and serialises
writers (IMMEDIATE transactions); there the constraint raises IntegrityError inside the
savepoint.
"""

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from annotation import selectors
from annotation.assignment import rank_candidates
from annotation.models import ACTIVE, Assignment, Expert, Pool, Unit
from annotation.selectors.work import (
    CalibrationDue,
    WorkState,
    hard_cases_for,
    pool_for_claim,
    pool_for_claim_by_id,
    rating_candidates,
    window_pivot,
    work_gate,
)
from annotation.services.calibration import calibration_claim_next
from annotation.services.core import leases_expire
from annotation.services.errors import AnnotationError, PoolBusy
from annotation.services.leases import lease_held_renew
from annotation.services.locks import units_locked
from config import compiled

# How many ranked units a claim tries before it looks at the pool again, and how often.
CLAIM_TRIES_PER_ROUND = 32
CLAIM_ROUNDS = 5
# How often a pool's run-out leases are marked expired in one sweep (``_sweep_now_and_then``).
LEASE_SWEEP_SECONDS = 60


class _Locked(Exception):
    """Another transaction holds the unit's row lock (PostgreSQL, when not waiting)."""


def _try_claim(
    *, pool: Pool, expert: Expert, unit_id: int, kind: str, now: datetime, wait: bool
) -> Assignment | None:
    """Lease this unit for work of ``kind``, or None when the constraint says it is taken;
    raise ``_Locked`` when another transaction holds it and ``wait`` is False."""
    try:
        with transaction.atomic():
            # The unit's row alone (``units_locked``), and no ordering: the default one joins
            # the pool, whose row would make every claim in the pool wait for (or skip) others.
            # The response and case come along for the expert's page (the lock stays the unit's).
            unit = (
                units_locked(skip_locked=not wait)
                .select_related("response__case")
                .filter(pk=unit_id)
                .order_by()
                .first()
            )
            if unit is None:
                raise _Locked
            assignment = Assignment.objects.create(
                pool=pool,
                unit=unit,
                expert=expert,
                kind=kind,
                shuffle_seed=secrets.randbits(62),
                lease_expires_at=now + timedelta(seconds=pool.lease_seconds),
            )
            return assignment
    except IntegrityError:
        # Lost a race on SQLite: the constraint said no.
        return None


def claim_first_free(
    *, pool: Pool, expert: Expert, unit_ids: Sequence[int], kind: str, now: datetime
) -> Assignment | None:
    """The first of these units (best first) the expert can take for work of ``kind``, which
    has no rater slot (adjudication), or None. Units other claimers hold are passed over at
    first and waited for at the end; the kind's constraint has the last word."""
    locked = []
    # The second pass walks the units the first found held; waiting never raises _Locked, so
    # nothing is added to that list while it is walked.
    for wait, ids in ((False, unit_ids), (True, locked)):
        for unit_id in ids:
            try:
                assignment = _try_claim(
                    pool=pool, expert=expert, unit_id=unit_id, kind=kind, now=now, wait=wait
                )
            except _Locked:
                locked.append(unit_id)
                continue
            if assignment is not None:
                return assignment
    return None


def _claim_slot(*, pool: Pool, expert: Expert, unit_id: int, now: datetime) -> Assignment | None:
    """Lease the unit's lowest free rater slot to the expert in one statement, or None when
    the database refuses: no slot free, the expert already holds or rated the unit, or holds
    another lease in the pool (a second tab's claim won).

    The slot is the lowest of 1..``raters_per_unit`` that no leased or submitted rating of the
    unit holds; the constraints decide a race (``ON CONFLICT DO NOTHING``: nothing inserted,
    nothing returned, no transaction aborted, so no savepoint). A lease that ran out but is
    not yet marked expired still holds its slot here (the caller sweeps them when a whole
    round came back empty). One text for SQLite and PostgreSQL; values are parameters, the
    slot numbers come from the pool's own integer.
    """
    assignment = Assignment(
        pool=pool,
        unit_id=unit_id,
        expert=expert,
        kind=Assignment.Kind.RATING,
        status=Assignment.Status.LEASED,
        shuffle_seed=secrets.randbits(62),
        lease_expires_at=now + timedelta(seconds=pool.lease_seconds),
        created_at=now,
    )
    fields = [f for f in Assignment._meta.concrete_fields if f.attname not in ("id", "slot")]
    qn = connection.ops.quote_name
    table = qn(Assignment._meta.db_table)
    slots = " UNION ALL ".join(f"SELECT {n} AS slot" for n in range(1, pool.raters_per_unit + 1))
    sql = (
        f"INSERT INTO {table} ({', '.join(qn(f.column) for f in fields)}, slot) "
        f"SELECT {', '.join(['%s'] * len(fields))}, open_slot.slot FROM ({slots}) open_slot "
        f"WHERE NOT EXISTS (SELECT 1 FROM {table} held WHERE held.unit_id = %s "
        "AND held.kind = %s AND held.status IN (%s, %s) AND held.slot = open_slot.slot) "
        "ORDER BY open_slot.slot LIMIT 1 ON CONFLICT DO NOTHING RETURNING id, slot"
    )
    params = [f.get_db_prep_save(getattr(assignment, f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, unit_id, Assignment.Kind.RATING, *ACTIVE])
        row = cursor.fetchone()
    if row is None:
        return None
    assignment.pk, assignment.slot = row
    assignment._state.adding, assignment._state.db = False, connection.alias
    # The expert's page reads the unit's response and case.
    [assignment.unit] = compiled.objects(("unit for the page",), _unit_for_page, unit_id=unit_id)
    return assignment


def _unit_for_page(*, unit_id: int) -> QuerySet[Unit]:
    return Unit.objects.select_related("response__case").filter(pk=unit_id).order_by()


@dataclass(frozen=True)
class Claim:
    """What a claim handed out, and the state that held: READY with an assignment, or one of
    ``selectors_work.NOTHING_TO_HAND_OUT`` with none."""

    assignment: Assignment | None
    state: WorkState
    # The study's hard-case policy for the expert when the claim applied it
    # (``hard_cases_for``), so that the progress line does not read the expert's quality again.
    hard: str | None = None


def assignment_claim_next(*, user, pool: Pool, now: datetime | None = None) -> Assignment | None:
    """Lease the next unit this expert should rate, or None when nothing is left for them.

    ``assignment_claim_next_with_state`` says why when it is None.
    """
    return assignment_claim_next_with_state(user=user, pool=pool, now=now).assignment


def assignment_claim_next_with_state(*, user, pool: Pool, now: datetime | None = None) -> Claim:
    """Lease the next unit this expert should rate; without one, say which state holds.

    The pool is read again as a claim reads it (``pool_for_claim_by_id``); the API's
    next-unit reads it that way by name (``assignment_claim_next_in_study``,
    ``pool_for_claim``).
    """
    now = now or timezone.now()
    expert = selectors.expert_for_user(user=user)
    pool = pool_for_claim_by_id(expert=expert, pool_id=pool.pk, now=now)
    return _claim(expert=expert, pool=pool, now=now)


def assignment_claim_next_in_study(
    *, user, name: str, now: datetime | None = None
) -> tuple[Pool | None, Claim]:
    """The expert's study of that name and the claim in it; (None, NOT_ENROLLED) when the
    expert is not part of a study of that name (drafts are theirs: "not open yet")."""
    now = now or timezone.now()
    expert = selectors.expert_for_user(user=user)
    pool = pool_for_claim(expert=expert, name=name, now=now)
    if pool is None:
        return None, Claim(None, WorkState.NOT_ENROLLED)
    return pool, _claim(expert=expert, pool=pool, now=now)


def _claim(*, expert: Expert, pool: Pool, now: datetime) -> Claim:
    """The claim proper, on a pool read as a claim reads it (``_pools_for_claim``).

    An expert holding an open lease in the pool gets that one back (renewed). While the pool
    is open, experts get rating slots; adjudication has its own senior queue
    (``annotation.services.adjudication``). When the pool requires a calibration the expert
    has not passed (or must retake because their agreement fell below the pool's floor), the
    expert gets the calibration set's units instead, in the same workbench, until the sitting
    is done. The checks before any unit is looked at are ``selectors_work.work_gate``, which
    the pages read too.
    """
    _sweep_now_and_then(pool=pool, now=now)
    if pool.held_lease is not None and (held := _held(pool=pool, expert=expert, now=now)):
        return held
    gate = work_gate(pool=pool, expert=expert, submitted_today=pool.submitted_today)
    if isinstance(gate, CalibrationDue):
        with transaction.atomic():
            calibration = calibration_claim_next(
                expert=expert, calibration_set=gate.calibration_set, reason=gate.reason, now=now
            )
        return _claimed(calibration)
    if gate is not None:
        return Claim(None, gate)
    hard = hard_cases_for(pool=pool, expert=expert)
    for _ in range(CLAIM_ROUNDS):
        candidates = rating_candidates(
            pool=pool,
            expert=expert,
            hard=hard,
            now=now,
            pivot=window_pivot(pool=pool),
        )
        if not candidates:
            # Nothing left, or what is left is kept for experts of proven quality.
            return Claim(None, WorkState.NOTHING_LEFT, hard)
        ranked = rank_candidates(
            candidates=candidates,
            specialties=(),  # the window is of one specialty tier already
            expert_key=expert.pseudonym,
        )
        for unit_id in ranked[:CLAIM_TRIES_PER_ROUND]:
            assignment = _claim_slot(pool=pool, expert=expert, unit_id=unit_id, now=now)
            if assignment is not None:
                return Claim(assignment, WorkState.READY, hard)
        # Every unit tried was refused: the expert's other tab may have won a lease meanwhile,
        # or run-out leases not yet marked expired hold the slots the window saw free.
        if held := _held(pool=pool, expert=expert, now=now):
            return held
        leases_expire(now=now, pool=pool)
    # Every unit tried filled up under us in every round; the caller may retry.
    raise PoolBusy(gettext("all remaining units are busy; try again in a moment"))


def _held(*, pool: Pool, expert: Expert, now: datetime) -> Claim | None:
    """The unit the expert holds in the pool, renewed (a reload gets the same unit back)."""
    with transaction.atomic():
        held = lease_held_renew(pool=pool, expert=expert, now=now)
    if held is None:
        return None
    held.pool, held.expert = pool, expert  # read already; the page asks for both
    if held.kind == Assignment.Kind.ADJUDICATION:
        raise AnnotationError(gettext("you hold a unit in the senior queue; decide it there first"))
    return Claim(held, WorkState.READY)


def _sweep_now_and_then(*, pool: Pool, now: datetime) -> None:
    """Mark the pool's run-out leases expired at most once per ``LEASE_SWEEP_SECONDS``, by
    whichever claim comes first. The window reads a run-out lease as free, but its row holds
    the slot in the constraint until marked, so this keeps such slots short-lived (a claim
    whose whole round was refused sweeps too) and the pages and audit trail current. No beat
    is needed, so the embedded server without a broker sweeps as a deployed one does.

    The claim's pool read brings ``leases_swept_at``, so the other claims of the minute decide
    without a round trip; of the claims that find a sweep due, the one whose conditional
    UPDATE moves it sweeps."""
    due = now - timedelta(seconds=LEASE_SWEEP_SECONDS)
    if pool.leases_swept_at is not None and pool.leases_swept_at > due:
        return
    not_swept_since = Q(leases_swept_at__isnull=True) | Q(leases_swept_at__lte=due)
    if Pool.objects.filter(not_swept_since, pk=pool.pk).update(leases_swept_at=now):
        leases_expire(now=now, pool=pool)


def _claimed(assignment: Assignment | None) -> Claim:
    return Claim(assignment, WorkState.READY if assignment else WorkState.NOTHING_LEFT)
