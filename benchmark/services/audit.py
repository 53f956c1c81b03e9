"""Audit rows: every change to a label, rubric, run or study state writes one, in the same
transaction as the change (the caller's)."""

from collections.abc import Iterable
from typing import Any

from django.db.models import Model

from benchmark.audit_actions import AuditActions
from benchmark.models import AuditEvent


def audit_entry(
    *, actor, action: AuditActions, obj: Model, data: dict[str, Any] | None = None
) -> AuditEvent:
    """An unsaved audit row for ``obj`` (for bulk_create); an action the enumeration does not
    name is refused (ValueError), so no row is written under a misspelt one."""
    return AuditEvent(
        actor=actor,
        action=AuditActions.named(action).value,
        object_type=obj._meta.label_lower,
        object_id=str(obj.pk),
        data=data or {},
    )


def audit_record(
    *, actor, action: AuditActions, obj: Model, data: dict[str, Any] | None = None
) -> AuditEvent:
    """Write one audit row for ``obj``."""
    entry = audit_entry(actor=actor, action=action, obj=obj, data=data)
    entry.save()
    return entry


def audit_record_many(entries: Iterable[AuditEvent]) -> list[AuditEvent]:
    """Write the unsaved rows of ``audit_entry`` in one statement."""
    return AuditEvent.objects.bulk_create(entries)
