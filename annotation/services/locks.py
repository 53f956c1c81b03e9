"""Row locks of the annotation app's writes, each named once with its semantics.

Every lock is taken inside the caller's transaction and covers the model's own row only
(``of=self``): a joined pool's row is read, never locked, or every expert of a study would
wait for every other's autosave, claim and submit.
"""

from django.db.models import QuerySet

from annotation.models import Assignment, Pool, Unit


def units_locked(*, skip_locked: bool = False) -> QuerySet[Unit]:
    """Units under FOR NO KEY UPDATE: inserting rows that reference a unit (assignments,
    submissions) takes KEY SHARE on it, which a plain FOR UPDATE would wrongly block (or
    skip, with ``skip_locked``)."""
    return Unit.objects.select_for_update(skip_locked=skip_locked, no_key=True, of=("self",))


def unit_lock(*, unit_id: int, related: tuple[str, ...] = ()) -> Unit:
    """The unit, re-read under its row lock (see ``units_locked``)."""
    return units_locked().select_related(*related).get(pk=unit_id)


def assignments_locked(*, skip_locked: bool = False) -> QuerySet[Assignment]:
    """Assignments under a row lock on their own rows."""
    return Assignment.objects.select_for_update(skip_locked=skip_locked, of=("self",))


def assignment_lock(*, assignment_id: int, related: tuple[str, ...] = ("pool",)) -> Assignment:
    """The assignment, re-read under its row lock, with ``related`` read alongside."""
    return assignments_locked().select_related(*related).get(pk=assignment_id)


def pool_lock(*, pool_id: int) -> Pool:
    """The pool, re-read under its row lock: its status and membership change one at a time."""
    return Pool.objects.select_for_update().get(pk=pool_id)
