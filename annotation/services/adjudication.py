"""The senior queue: units sent to a senior expert, claims under a lease, and decisions.

A unit reaches the queue two ways: a 2/1 split on a criterion the study chose (validation
decides that in the transaction of the third rating and calls ``unit_queue_adjudication``
with the split criteria), or a study closing before the unit got three ratings (the whole
unit). The queue works while the study is open and after it closed.
"""

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.assignment import Candidate, rank_candidates
from annotation.audit_actions import AnnotationAction
from annotation.models import Assignment, Pool, Unit
from annotation.selectors import adjudication as queue
from annotation.services.claims import claim_first_free
from annotation.services.core import leases_expire
from annotation.services.errors import AnnotationError, PoolBusy
from annotation.services.leases import lease_held_renew
from annotation.services.locks import unit_lock
from benchmark.services.audit import audit_record

CLAIM_TRIES = 32


def unit_queue_adjudication(*, unit_id: int, items: Iterable[int], actor=None) -> Unit:
    """Send a unit to the senior queue for these rubric items (empty: the whole unit)."""
    items = sorted({int(pk) for pk in items})
    with transaction.atomic():
        unit = unit_lock(unit_id=unit_id)
        if unit.needs_adjudication and unit.adjudicate_items == items:
            return unit  # already queued for exactly these criteria
        unit.needs_adjudication = True
        unit.adjudicate_items = items
        unit.save(update_fields=["needs_adjudication", "adjudicate_items"])
        audit_record(
            actor=actor,
            action=AnnotationAction.UNIT_ADJUDICATION_QUEUED,
            obj=unit,
            data={"items": items, "whole_unit": not items},
        )
    return unit


def adjudication_claim_next(*, user, pool: Pool, now: datetime | None = None) -> Assignment | None:
    """Lease the next unit this senior should adjudicate, or None when the queue is empty.

    A senior holding an adjudication lease in the study gets it back (renewed). A study holds
    one open lease per expert, so a senior who is also rating in the study finishes that unit
    first. Never hands out a unit the senior rated.
    """
    now = now or timezone.now()
    senior = queue.senior_for_user(user=user)
    if pool.status == Pool.Status.DRAFT:
        return None
    leases_expire(now=now, pool=pool)
    with transaction.atomic():
        held = lease_held_renew(pool=pool, expert=senior, now=now)
        if held is not None:
            if held.kind == Assignment.Kind.ADJUDICATION:
                return held
            raise AnnotationError(
                "you hold a unit to rate in this study; submit it in the workbench first"
            )
        rows = queue.adjudication_queue(pool=pool, expert=senior).values_list(
            "pk", "response__case__primary_scene", "response__case__difficulty"
        )
        candidates = [
            Candidate(unit_id=pk, taken=0, scene=scene or "", hard=difficulty == "hard")
            for pk, scene, difficulty in rows
        ]
        if not candidates:
            return None
        ranked = rank_candidates(
            candidates=candidates, specialties=senior.specialties, expert_key=senior.pseudonym
        )
        assignment = claim_first_free(
            pool=pool,
            expert=senior,
            unit_ids=ranked[:CLAIM_TRIES],
            kind=Assignment.Kind.ADJUDICATION,
            now=now,
        )
        if assignment is not None:
            audit_record(
                actor=user,
                action=AnnotationAction.ADJUDICATION_CLAIM,
                obj=assignment,
                data={"unit": assignment.unit_id},
            )
            return assignment
    raise PoolBusy(gettext("every unit in the senior queue is busy; try again in a moment"))
