"""Row locks of the validation app's writes, named once with their semantics."""

from django.db.models import QuerySet

from validation.models import Study, StudyUnit


def study_units_locked(*, no_key: bool = True) -> QuerySet[StudyUnit]:
    """Study units under a lock on their own rows only (``of=self``), never the joined study's
    or pool's row every other completion in the study also reads.

    NO KEY UPDATE (the default) still lets other transactions insert rows that reference the
    unit; the close's sweep takes the full lock over every unit it settles.
    """
    return StudyUnit.objects.select_for_update(of=("self",), no_key=no_key)


def study_lock(*, study_id: int) -> Study:
    """The study, re-read under its row lock, with its pool (inside the caller's transaction)."""
    return Study.objects.select_for_update().select_related("pool").get(pk=study_id)
