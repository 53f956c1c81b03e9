"""Lease handling shared by the claims, autosave, renewal and the submits."""

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from annotation.models import Assignment, Expert, Pool
from annotation.services.errors import LeaseLost


def lease_held_renew(*, pool: Pool, expert: Expert, now: datetime) -> Assignment | None:
    """The unit the expert already holds in this pool, its lease extended; None if none.

    A claim hands this back first, so reloading the page never takes a second unit.
    """
    held = Assignment.objects.filter(
        pool=pool, expert=expert, status=Assignment.Status.LEASED
    ).first()
    if held is not None:
        held.lease_expires_at = now + timedelta(seconds=pool.lease_seconds)
        held.save(update_fields=["lease_expires_at"])
    return held


def lease_hold(*, assignment: Assignment, now: datetime) -> None:
    """Keep or win back the lease; raise LeaseLost when the unit's slot is gone."""
    if assignment.status == Assignment.Status.RELEASED:
        raise LeaseLost(gettext("this unit was taken away from you (study closed or reassigned)"))
    if assignment.status == Assignment.Status.EXPIRED:
        if assignment.pool.status != Pool.Status.OPEN and assignment.kind == "rating":
            raise LeaseLost(gettext("the study is closed"))
        try:
            with transaction.atomic():
                assignment.status = Assignment.Status.LEASED
                assignment.save(update_fields=["status"])
        except IntegrityError as exc:
            assignment.status = Assignment.Status.EXPIRED
            raise LeaseLost(
                gettext("your lease expired and the unit went to another expert")
            ) from exc
    assignment.lease_expires_at = now + timedelta(seconds=assignment.pool.lease_seconds)
    assignment.save(update_fields=["lease_expires_at"])
