"""An admin's hand on who works on what: route a unit to an expert, send an expert back to
calibration, take an expert off the work. The dashboard's risk alerts call these."""

import secrets
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.assignment import free_slot
from annotation.audit_actions import AnnotationAction
from annotation.models import ACTIVE, Assignment, CalibrationAttempt, Expert, Pool, Unit
from annotation.selectors import quality as selectors_quality
from annotation.services.errors import AnnotationError
from annotation.services.locks import assignments_locked, unit_lock
from benchmark.services.audit import audit_record
from config.locks import row_lock

# A routed unit waits for its expert, who may not be online right now; a claim renews it to
# the pool's usual lease once the expert picks it up.
ROUTED_LEASE_SECONDS = 24 * 60 * 60


def unit_route_to_expert(
    *, unit: Unit, expert: Expert, actor, now: datetime | None = None
) -> Assignment:
    """Lease a free rater slot of ``unit`` to ``expert``; their next claim returns it first.

    Refused unless the pool is open, the expert is an active member of it who has not rated
    (or been handed) this unit and holds no other open unit in it, is not due a calibration,
    and the unit still has a free slot of its ``raters_per_unit``. The database constraints on
    ``Assignment`` back every one of these rules up against a concurrent claim.
    """
    now = now or timezone.now()
    with transaction.atomic():
        # Lock the unit as claims do, so no claim takes the last slot between check and insert.
        unit = unit_lock(unit_id=unit.pk, related=("pool",))
        pool = unit.pool
        if pool.status != Pool.Status.OPEN:
            raise AnnotationError(_("the study is not open"))
        if unit.needs_adjudication:
            raise AnnotationError(_("this unit waits for a senior expert's adjudication"))
        expert = Expert.objects.get(pk=expert.pk)
        if not expert.is_active:
            raise AnnotationError(_("%(expert)s is not active") % {"expert": expert})
        if not pool.experts.filter(pk=expert.pk).exists():
            raise AnnotationError(
                _("%(expert)s is not an expert of this study") % {"expert": expert}
            )
        active = unit.assignments.filter(status__in=ACTIVE, kind=Assignment.Kind.RATING)
        if active.filter(expert=expert).exists():
            raise AnnotationError(_("%(expert)s already rates this unit") % {"expert": expert})
        if Assignment.objects.filter(pool=pool, expert=expert, status="leased").exists():
            raise AnnotationError(
                _("%(expert)s holds another open unit in this study; it must be submitted first")
                % {"expert": expert}
            )
        if selectors_quality.calibration_due(expert=expert, pool=pool) is not None:
            raise AnnotationError(
                _("%(expert)s must pass the study's calibration first") % {"expert": expert}
            )
        slot = free_slot(
            taken_slots=active.values_list("slot", flat=True), raters=pool.raters_per_unit
        )
        if slot is None:
            raise AnnotationError(_("this unit already has all its raters"))
        try:
            with transaction.atomic():
                assignment = Assignment.objects.create(
                    pool=pool,
                    unit=unit,
                    expert=expert,
                    kind=Assignment.Kind.RATING,
                    slot=slot,
                    shuffle_seed=secrets.randbits(62),
                    lease_expires_at=now + timedelta(seconds=ROUTED_LEASE_SECONDS),
                )
        except IntegrityError as exc:
            raise AnnotationError(_("the unit or the expert changed meanwhile; try again")) from exc
        audit_record(
            actor=actor,
            action=AnnotationAction.ASSIGNMENT_ROUTE,
            obj=assignment,
            data={"unit": unit.pk, "expert": expert.pk, "slot": slot},
        )
    return assignment


def expert_require_recalibration(
    *, expert: Expert, pool: Pool, actor, now: datetime | None = None
) -> CalibrationAttempt:
    """Open a recalibration sitting of the study's calibration set for ``expert``.

    Study work in the pool waits until the sitting is finished and passed (see
    ``annotation.selectors.work.work_gate``). An open sitting is returned as it is.
    """
    now = now or timezone.now()
    if pool.calibration_id is None:
        raise AnnotationError(_("the study has no calibration set to send experts back to"))
    with transaction.atomic():
        attempt = CalibrationAttempt.objects.filter(
            calibration_set_id=pool.calibration_id, expert=expert, finished_at__isnull=True
        ).first()
        if attempt is not None:
            return attempt
        attempt = CalibrationAttempt.objects.create(
            calibration_set_id=pool.calibration_id,
            expert=expert,
            reason=selectors_quality.RECALIBRATION,
            started_at=now,
        )
        audit_record(
            actor=actor,
            action=AnnotationAction.CALIBRATION_REQUIRE,
            obj=attempt,
            data={"expert": expert.pk, "pool": pool.pk},
        )
    return attempt


def expert_set_active(*, expert: Expert, active: bool, actor) -> Expert:
    """Take an expert off all work (or back on). Their open leases go back to the pools."""
    with transaction.atomic():
        expert = row_lock(Expert, expert.pk)
        if expert.is_active == active:
            return expert
        expert.is_active = active
        expert.save(update_fields=["is_active"])
        released = 0
        if not active:
            for assignment in assignments_locked().filter(
                expert=expert, status=Assignment.Status.LEASED
            ):
                assignment.status = Assignment.Status.RELEASED
                assignment.save(update_fields=["status"])
                released += 1
                audit_record(
                    actor=actor,
                    action=AnnotationAction.ASSIGNMENT_RELEASE,
                    obj=assignment,
                    data={"reason": "expert deactivated"},
                )
        audit_record(
            actor=actor,
            action=AnnotationAction.EXPERT_ACTIVATE
            if active
            else AnnotationAction.EXPERT_DEACTIVATE,
            obj=expert,
            data={"released": released},
        )
    return expert
