"""The plainest row lock, named once: a model instance re-read under FOR UPDATE.

For rows nothing else references while they change (an expert's switch, a comment, a pay
entry, a judge or generation run). Units, assignments and study units have locks of their own
semantics in ``annotation.services.locks`` and ``validation.services.locks``.
"""

from typing import TypeVar

from django.db.models import Model

M = TypeVar("M", bound=Model)


def row_lock(model: type[M], pk: object) -> M:
    """The row, read (again) under its lock, inside the caller's transaction."""
    return model._default_manager.select_for_update().get(pk=pk)


def row_try_lock(model: type[M], pk: object) -> M | None:
    """The row under a lock that other key-sharing readers pass (FOR NO KEY UPDATE), or None
    when another transaction holds it (PostgreSQL: skipped, not waited for) or it is gone."""
    rows = model._default_manager.select_for_update(skip_locked=True, no_key=True, of=("self",))
    return rows.filter(pk=pk).first()
