"""The next-unit claim: which unit an expert gets, under which lock, in which rater slot.

Concurrency: units are handed out under ``select_for_update(skip_locked=True)`` on
PostgreSQL. SQLite has no row locks, so there the partial unique constraints on
``Assignment`` (one active rating per expert and unit, one active holder per rater slot) are
what stops a race; a losing insert raises IntegrityError inside a savepoint and the claim
moves on to the next unit.
"""

import secrets
import time
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext

from annotation import selectors, selectors_quality
from annotation.assignment import Candidate, HardCases, free_slot, rank_candidates
from annotation.models import ACTIVE, Assignment, Expert, Pool, Unit
from annotation.services.calibration import calibration_claim_next
from annotation.services.core import leases_expire
from annotation.services.errors import AnnotationError, PoolBusy
from annotation.services.leases import lease_held_renew

# How many ranked units a claim tries to lock before it looks at the pool again.
CLAIM_TRIES_PER_ROUND = 32
CLAIM_ROUNDS = 5


def _candidates(*, pool: Pool, expert: Expert) -> list[Candidate]:
    """The pool's units this expert may still rate, with their free rater slots counted."""
    units = (
        Unit.objects.filter(pool=pool)
        .exclude(
            assignments__expert=expert,
            assignments__status__in=ACTIVE,
            assignments__kind=Assignment.Kind.RATING,
        )
        .annotate(
            taken=Count(
                "assignments",
                filter=Q(assignments__status__in=ACTIVE, assignments__kind=Assignment.Kind.RATING),
            )
        )
        .filter(taken__lt=pool.raters_per_unit)
    )
    rows = units.values_list(
        "pk", "taken", "response__case__primary_scene", "response__case__difficulty"
    )
    abilities: dict[int, set[str]] = {}
    if expert.specialties:
        for unit_id, ability in Unit.objects.filter(pool=pool).values_list(
            "pk", "response__case__rubric__ability"
        ):
            abilities.setdefault(unit_id, set()).add(ability)
    return [
        Candidate(
            unit_id=pk,
            taken=taken,
            scene=scene or "",
            abilities=frozenset(abilities.get(pk, ())),
            hard=difficulty == "hard",
        )
        for pk, taken, scene, difficulty in rows
    ]


def _hard_cases(*, pool: Pool, expert: Expert) -> str:
    if pool.hard_min_quality is None:
        return HardCases.ANY
    standing = selectors_quality.expert_quality_get(expert=expert).quality
    proven = standing is not None and standing >= pool.hard_min_quality
    return HardCases.FIRST if proven else HardCases.NONE


def _calibration_work(*, pool: Pool, expert: Expert, now: datetime) -> Assignment | bool | None:
    """A calibration unit when the expert must calibrate first; False when study work may go
    ahead. (Caller's transaction.)"""
    calibration_set = getattr(pool, "calibration_set", None)
    if calibration_set is not None:
        # The set opened directly: continue a sitting, or start one unless already passed.
        latest = selectors_quality.calibration_latest(
            expert=expert, calibration_set=calibration_set
        )
        open_sitting = calibration_set.attempts.filter(
            expert=expert, finished_at__isnull=True
        ).exists()
        if latest is not None and latest.passed and not open_sitting:
            return None
        reason = selectors_quality.FIRST if latest is None else selectors_quality.RETAKE
        return calibration_claim_next(
            expert=expert, calibration_set=calibration_set, reason=reason, now=now
        )
    reason = selectors_quality.calibration_due(expert=expert, pool=pool)
    if reason is None and pool.calibration_id is not None:
        # An admin sent the expert back (an open sitting, routing.expert_require_recalibration),
        # or that sitting ended failed: study work waits for a pass.
        latest = selectors_quality.calibration_latest(
            expert=expert, calibration_set=pool.calibration
        )
        if (latest is not None and not latest.passed) or pool.calibration.attempts.filter(
            expert=expert, finished_at__isnull=True
        ).exists():
            reason = selectors_quality.RECALIBRATION
    if reason is None:
        return False
    return calibration_claim_next(
        expert=expert, calibration_set=pool.calibration, reason=reason, now=now
    )


def _try_claim(
    *, pool: Pool, expert: Expert, unit_id: int, adjudication: bool, now: datetime
) -> Assignment | None:
    # Another claimer holds this unit's row lock: skip it rather than wait (PostgreSQL).
    # NO KEY UPDATE, because inserting rows that reference the unit (assignments,
    # submissions) takes KEY SHARE on it, which a plain FOR UPDATE would wrongly skip.
    unit = Unit.objects.select_for_update(skip_locked=True, no_key=True).filter(pk=unit_id).first()
    if unit is None:
        return None
    if adjudication:
        slot = None
    else:
        taken = unit.assignments.filter(status__in=ACTIVE, kind=Assignment.Kind.RATING).values_list(
            "slot", flat=True
        )
        slot = free_slot(taken_slots=taken, raters=pool.raters_per_unit)
        if slot is None:
            return None
    try:
        with transaction.atomic():
            return Assignment.objects.create(
                pool=pool,
                unit=unit,
                expert=expert,
                kind=Assignment.Kind.ADJUDICATION if adjudication else Assignment.Kind.RATING,
                slot=slot,
                shuffle_seed=secrets.randbits(62),
                lease_expires_at=now + timedelta(seconds=pool.lease_seconds),
            )
    except IntegrityError:
        # Lost a race on SQLite (or the unit filled meanwhile): the constraint said no.
        return None


def assignment_claim_next(*, user, pool: Pool, now: datetime | None = None) -> Assignment | None:
    """Lease the next unit this expert should rate, or None when nothing is left for them.

    An expert holding an open lease in the pool gets that one back (renewed). While the pool
    is open, experts get rating slots; adjudication has its own senior queue
    (``annotation.services.adjudication``). When the pool requires a calibration the expert
    has not passed (or must retake because their agreement fell below the pool's floor), the
    expert gets the calibration set's units instead, in the same workbench, until the sitting
    is done.
    """
    now = now or timezone.now()
    expert = selectors.expert_for_user(user=user)
    leases_expire(now=now, pool=pool)
    with transaction.atomic():
        held = lease_held_renew(pool=pool, expert=expert, now=now)
        if held is not None and held.kind == Assignment.Kind.ADJUDICATION:
            raise AnnotationError(
                gettext("you hold a unit in the senior queue; decide it there first")
            )
        if held is not None:
            return held
        if pool.status != Pool.Status.OPEN:
            return None
        calibration = _calibration_work(pool=pool, expert=expert, now=now)
        if calibration is not False:
            return calibration
        if selectors.submissions_today(expert=expert, now=now) >= expert.daily_capacity:
            return None
        hard = _hard_cases(pool=pool, expert=expert)
        for round_ in range(CLAIM_ROUNDS):
            if round_:
                # Everything we tried was locked by other claimers; let them commit.
                time.sleep(0.02 * round_)
            candidates = _candidates(pool=pool, expert=expert)
            if not candidates:
                return None
            ranked = rank_candidates(
                candidates=candidates,
                specialties=expert.specialties,
                expert_key=expert.pseudonym,
                hard=hard,
            )
            if not ranked:
                return None  # what is left is kept for experts of proven quality
            for unit_id in ranked[:CLAIM_TRIES_PER_ROUND]:
                assignment = _try_claim(
                    pool=pool, expert=expert, unit_id=unit_id, adjudication=False, now=now
                )
                if assignment is not None:
                    return assignment
        # Every candidate was locked or lost to a race in every round; the caller may retry.
        raise PoolBusy(gettext("all remaining units are busy; try again in a moment"))
