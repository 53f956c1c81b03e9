"""Reads of active time on task: the seconds the workbench measured per rating submission."""

from dataclasses import dataclass

from annotation.models import Assignment, Expert, Submission


@dataclass(frozen=True)
class ExpertTimes:
    expert: Expert
    seconds: list[int]  # one figure per measured rating submission, in submission order


def active_seconds_by_expert(*, pool_id: int) -> list[ExpertTimes]:
    """Each expert's measured active seconds on the pool's rating submissions (staff only).

    Submissions without a figure (an API client that does not measure) are left out; experts
    with no measured submission are not listed. Two queries whatever the pool's size.
    """
    rows = (
        Submission.objects.filter(
            unit__pool_id=pool_id, kind=Assignment.Kind.RATING, active_seconds__isnull=False
        )
        .order_by("submitted_at", "pk")
        .values_list("expert_id", "active_seconds")
    )
    seconds: dict[int, list[int]] = {}
    for expert_id, value in rows:
        seconds.setdefault(expert_id, []).append(value)
    experts = Expert.objects.filter(pk__in=seconds).select_related("user")
    found = [ExpertTimes(expert=e, seconds=seconds[e.pk]) for e in experts]
    return sorted(found, key=lambda t: t.expert.user.get_username())
