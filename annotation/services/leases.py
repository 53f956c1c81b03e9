"""Lease handling shared by the claims, autosave, renewal and the submits."""

from collections.abc import Mapping
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from annotation.models import Assignment, Expert, Pool
from annotation.selectors.work import lease_open_in_pool
from annotation.services.errors import AnnotationError, LeaseLost
from annotation.services.inserts import row_update
from annotation.services.locks import assignment_lock


def lease_held_renew(*, pool: Pool, expert: Expert, now: datetime) -> Assignment | None:
    """The unit the expert already holds in this pool, its lease extended; None if none.

    A claim hands this back first, so reloading the page never takes a second unit.
    """
    held = lease_open_in_pool(pool=pool, expert=expert)
    if held is not None:
        held.lease_expires_at = now + timedelta(seconds=pool.lease_seconds)
        held.save(update_fields=["lease_expires_at"])
    return held


def lease_extend(
    *, assignment: Assignment, now: datetime, draft: Mapping[str, object] | None = None
) -> Assignment:
    """Extend the lease of an unsubmitted assignment (autosave, renewal), writing the
    autosave's ``draft`` columns with it.

    A lease still out is extended in one conditional UPDATE with no transaction of its own:
    a submit changes the status under the assignment's lock, so once it has committed (on
    PostgreSQL the UPDATE waits for it and re-reads the row) the UPDATE finds no row and no
    draft is written after its submission. Otherwise the assignment is locked and
    ``lease_hold`` wins back an expired lease or refuses a lost one.
    """
    fields = {
        **(draft or {}),
        "lease_expires_at": now + timedelta(seconds=assignment.pool.lease_seconds),
    }
    out = {"id": assignment.pk, "status": Assignment.Status.LEASED}
    if not row_update(Assignment, where=out, fields=fields):
        with transaction.atomic():
            assignment = assignment_lock(assignment_id=assignment.pk)
            if assignment.status == Assignment.Status.SUBMITTED:
                raise AnnotationError(gettext("this assignment is already submitted"))
            lease_hold(assignment=assignment, now=now)
            row_update(Assignment, where={"id": assignment.pk}, fields=fields)
    assignment.status = Assignment.Status.LEASED
    for name, value in fields.items():
        setattr(assignment, name, value)
    return assignment


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
