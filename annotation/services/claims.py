"""The next-unit claim: which unit an expert gets, under which lock, in which rater slot.

Concurrency: on PostgreSQL a claim first tries its ranked units under
``select_for_update(skip_locked=True)``, so claimers asking at once spread over the pool. A
unit locked by another transaction is not full: when every unit tried was either full or
locked, the claim waits for the locked ones in turn instead of giving up (a team on a small
pool near its end used to get "all remaining units are busy" by the hundred). Each unit is
locked inside a savepoint that is rolled back unless it is claimed, so a waiting claim holds
no unit lock another claim could wait for. SQLite has no row locks and serialises writers
(IMMEDIATE transactions); there the partial unique constraints on ``Assignment`` (one active
rating per expert and unit, one active holder per rater slot) are the last word, and a
losing insert raises IntegrityError inside the savepoint.
"""

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation import selectors
from annotation.assignment import free_slot, rank_candidates
from annotation.models import ACTIVE, Assignment, Expert, Pool, Unit
from annotation.selectors.work import (
    CalibrationDue,
    WorkState,
    hard_cases_for,
    rating_candidates,
    work_gate,
)
from annotation.services.calibration import calibration_claim_next
from annotation.services.core import leases_expire
from annotation.services.errors import AnnotationError, PoolBusy
from annotation.services.leases import lease_held_renew
from annotation.services.locks import units_locked

# How many ranked units a claim tries before it looks at the pool again, and how often.
CLAIM_TRIES_PER_ROUND = 32
CLAIM_ROUNDS = 5
# How often a pool's run-out leases are marked expired in one sweep (``_sweep_now_and_then``).
LEASE_SWEEP_SECONDS = 60


class _Locked(Exception):
    """Another transaction holds the unit's row lock (PostgreSQL, when not waiting)."""


def _try_claim(
    *, pool: Pool, expert: Expert, unit_id: int, adjudication: bool, now: datetime, wait: bool
) -> Assignment | None:
    """Claim this unit, or None when it has no place for the expert; raise ``_Locked`` when
    another transaction holds it and ``wait`` is False."""
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
            if adjudication:
                slot = None
            else:
                slot = free_slot(
                    taken_slots=_slots_held(unit=unit, now=now), raters=pool.raters_per_unit
                )
                if slot is None:
                    transaction.set_rollback(True)  # give the lock back with the savepoint
                    return None
            assignment = Assignment.objects.create(
                pool=pool,
                unit=unit,
                expert=expert,
                kind=Assignment.Kind.ADJUDICATION if adjudication else Assignment.Kind.RATING,
                slot=slot,
                shuffle_seed=secrets.randbits(62),
                lease_expires_at=now + timedelta(seconds=pool.lease_seconds),
            )
            return assignment
    except IntegrityError:
        # Lost a race on SQLite (or the unit filled meanwhile): the constraint said no.
        return None


def _slots_held(*, unit: Unit, now: datetime) -> list[int]:
    """The unit's rater slots held now, read under its lock. A lease that ran out is marked
    expired here, on the unit the claim touches (the pool's sweep may not have come yet); one
    whose row its holder has locked (renewing it right now) stays held."""
    held = unit.assignments.filter(status__in=ACTIVE, kind=Assignment.Kind.RATING).order_by()
    rows = list(held.values_list("pk", "slot", "status", "lease_expires_at"))
    stale = [
        pk
        for pk, _, status, expires in rows
        if status == Assignment.Status.LEASED and expires <= now
    ]
    if stale:
        leases_expire(now=now, ids=stale)
        return list(held.values_list("slot", flat=True))
    return [slot for _, slot, *_ in rows]


def claim_first_free(
    *, pool: Pool, expert: Expert, unit_ids: Sequence[int], adjudication: bool, now: datetime
) -> Assignment | None:
    """The first of these units (best first) the expert can claim, or None when none has a
    place. Units other claimers hold are passed over at first and waited for at the end."""
    locked = []
    # The second pass walks the units the first found held; waiting never raises _Locked, so
    # nothing is added to that list while it is walked.
    for wait, ids in ((False, unit_ids), (True, locked)):
        for unit_id in ids:
            try:
                assignment = _try_claim(
                    pool=pool,
                    expert=expert,
                    unit_id=unit_id,
                    adjudication=adjudication,
                    now=now,
                    wait=wait,
                )
            except _Locked:
                locked.append(unit_id)
                continue
            if assignment is not None:
                return assignment
    return None


@dataclass(frozen=True)
class Claim:
    """What a claim handed out, and the state that held: READY with an assignment, or one of
    ``selectors_work.NOTHING_TO_HAND_OUT`` with none."""

    assignment: Assignment | None
    state: WorkState


def assignment_claim_next(*, user, pool: Pool, now: datetime | None = None) -> Assignment | None:
    """Lease the next unit this expert should rate, or None when nothing is left for them.

    ``assignment_claim_next_with_state`` says why when it is None.
    """
    return assignment_claim_next_with_state(user=user, pool=pool, now=now).assignment


def assignment_claim_next_with_state(*, user, pool: Pool, now: datetime | None = None) -> Claim:
    """Lease the next unit this expert should rate; without one, say which state holds.

    An expert holding an open lease in the pool gets that one back (renewed). While the pool
    is open, experts get rating slots; adjudication has its own senior queue
    (``annotation.services.adjudication``). When the pool requires a calibration the expert
    has not passed (or must retake because their agreement fell below the pool's floor), the
    expert gets the calibration set's units instead, in the same workbench, until the sitting
    is done. The checks before any unit is looked at are ``selectors_work.work_gate``, which
    the pages read too.
    """
    now = now or timezone.now()
    expert = selectors.expert_for_user(user=user)
    _sweep_now_and_then(pool=pool, now=now)
    with transaction.atomic():
        held = lease_held_renew(pool=pool, expert=expert, now=now)
        if held is not None and held.kind == Assignment.Kind.ADJUDICATION:
            raise AnnotationError(
                gettext("you hold a unit in the senior queue; decide it there first")
            )
        if held is not None:
            return Claim(held, WorkState.READY)
        gate = work_gate(pool=pool, expert=expert, now=now)
        if isinstance(gate, CalibrationDue):
            calibration = calibration_claim_next(
                expert=expert, calibration_set=gate.calibration_set, reason=gate.reason, now=now
            )
            return _claimed(calibration)
        if gate is not None:
            return Claim(None, gate)
        hard = hard_cases_for(pool=pool, expert=expert)
        for _ in range(CLAIM_ROUNDS):
            candidates = rating_candidates(
                pool=pool, expert=expert, hard=hard, now=now, start=random.random()
            )
            if not candidates:
                # Nothing left, or what is left is kept for experts of proven quality.
                return Claim(None, WorkState.NOTHING_LEFT)
            ranked = rank_candidates(
                candidates=candidates,
                specialties=(),  # the window is of one specialty tier already
                expert_key=expert.pseudonym,
            )
            assignment = claim_first_free(
                pool=pool,
                expert=expert,
                unit_ids=ranked[:CLAIM_TRIES_PER_ROUND],
                adjudication=False,
                now=now,
            )
            if assignment is not None:
                return Claim(assignment, WorkState.READY)
        # Every unit tried filled up under us in every round; the caller may retry.
        raise PoolBusy(gettext("all remaining units are busy; try again in a moment"))


def _sweep_now_and_then(*, pool: Pool, now: datetime) -> None:
    """Mark the pool's run-out leases expired at most once per ``LEASE_SWEEP_SECONDS``, by
    whichever claim comes first (the claim itself reads a run-out lease as free and marks the
    ones on the unit it takes, so this is for the pages and the audit trail). No beat is
    needed, so the embedded server without a broker sweeps as a deployed one does."""
    if cache.add(f"annotation:leases-swept:{pool.pk}", True, timeout=LEASE_SWEEP_SECONDS):
        leases_expire(now=now, pool=pool)


def _claimed(assignment: Assignment | None) -> Claim:
    return Claim(assignment, WorkState.READY if assignment else WorkState.NOTHING_LEFT)
