"""The one lease rule of every kind of expert work (``annotation.models.work.LeasedWork``):
a claim hands back the row the expert holds first, renewed; leases that ran out are marked
expired with one audit row each; a submit or autosave on an expired row wins it back unless
its slot was taken, else ``LeaseLost``. Study work (assignments) and construction work
(tasks) both go through these functions.
"""

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TypeVar

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext

from annotation.models import Assignment, Expert, Pool
from annotation.models.work import LeasedWork, LeaseStatus
from annotation.selectors.work import lease_open_in_pool
from annotation.services.errors import AnnotationError, LeaseLost
from annotation.services.inserts import row_update
from annotation.services.locks import assignment_lock
from benchmark.services.audit import audit_entry, audit_record_many

Row = TypeVar("Row", bound=LeasedWork)


def lease_renew(row: Row | None, *, seconds: int, now: datetime) -> Row | None:
    """The row the expert holds, its lease extended by ``seconds`` from now (None stays None).

    A claim hands this back first, so reloading the page never takes a second piece of work.
    """
    if row is not None:
        row.lease_expires_at = now + timedelta(seconds=seconds)
        row.save(update_fields=["lease_expires_at"])
    return row


def leases_lapse(
    rows: QuerySet, *, now: datetime, action: str, describe: Callable[[LeasedWork], dict]
) -> int:
    """Mark expired the leases among ``rows`` that ran out, one audit row each (``action``,
    ``describe(row)`` its data), and return how many. Safe to run concurrently: a row another
    transaction holds (its expert renewing or submitting it) is left alone."""
    with transaction.atomic():
        expired = list(
            rows.select_for_update(skip_locked=True, of=("self",)).filter(
                status=LeaseStatus.LEASED, lease_expires_at__lte=now
            )
        )
        if expired:
            rows.model.objects.filter(pk__in=[row.pk for row in expired]).update(
                status=LeaseStatus.EXPIRED
            )
            audit_record_many(
                audit_entry(actor=None, action=action, obj=row, data=describe(row))
                for row in expired
            )
    return len(expired)


def lease_win_back(
    row: LeasedWork, *, lost: str, taken: Callable[[], bool] = lambda: False
) -> None:
    """Win back the lease of an expired row (under its lock): refused with ``LeaseLost`` when
    staff released it, when ``taken()`` says its slot went to another expert (kinds that count
    their slots), or when the kind's unique constraint does (kinds whose slots are rows)."""
    if row.status == LeaseStatus.RELEASED:
        raise LeaseLost(gettext("this work was taken away from you (closed or reassigned)"))
    if row.status != LeaseStatus.EXPIRED:
        return
    if taken():
        raise LeaseLost(lost)
    try:
        with transaction.atomic():
            row.status = LeaseStatus.LEASED
            row.save(update_fields=["status"])
    except IntegrityError as exc:
        row.status = LeaseStatus.EXPIRED
        raise LeaseLost(lost) from exc


def lease_held_renew(*, pool: Pool, expert: Expert, now: datetime) -> Assignment | None:
    """The unit the expert already holds in this pool, its lease extended; None if none."""
    return lease_renew(
        lease_open_in_pool(pool=pool, expert=expert), seconds=pool.lease_seconds, now=now
    )


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
    if (
        assignment.status == Assignment.Status.EXPIRED
        and assignment.pool.status != Pool.Status.OPEN
        and assignment.kind == "rating"
    ):
        raise LeaseLost(gettext("the study is closed"))
    lease_win_back(
        assignment, lost=gettext("your lease expired and the unit went to another expert")
    )
    lease_renew(assignment, seconds=assignment.pool.lease_seconds, now=now)
