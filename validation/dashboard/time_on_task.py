"""Time on task for the admin dashboard: active seconds per unit per expert, too-fast flags.

Staff only. The figures come from annotation's selector (two queries); the too-fast rule is
``rules.too_fast_threshold``.
"""

from dataclasses import dataclass

from annotation.models import Expert
from annotation.selectors.time_on_task import active_seconds_by_expert
from validation.dashboard import rules
from validation.models import Study


@dataclass(frozen=True)
class ExpertTime:
    expert: Expert
    figures: rules.TimeFigures


@dataclass(frozen=True)
class TimeOnTask:
    experts: list[ExpertTime]
    measured: int  # measured rating submissions in the study
    median: float | None  # the study's median active seconds per unit
    threshold: float | None  # under this a rating is too fast; None: too few to tell
    too_fast: int

    @property
    def min_measured(self) -> int:
        return rules.TOO_FAST_MIN_MEASURED

    @property
    def share_percent(self) -> int:
        return round(rules.TOO_FAST_SHARE * 100)


def study_time_on_task(*, study: Study) -> TimeOnTask:
    """Each expert's measured ratings in the study with median, p10 and too-fast count."""
    per_expert = active_seconds_by_expert(pool_id=study.pool_id)
    everything = [s for times in per_expert for s in times.seconds]
    threshold = rules.too_fast_threshold(everything)
    experts = [
        ExpertTime(expert=t.expert, figures=rules.time_figures(t.seconds, threshold=threshold))
        for t in per_expert
    ]
    return TimeOnTask(
        experts=experts,
        measured=len(everything),
        median=rules.time_figures(everything, threshold=None).median if everything else None,
        threshold=threshold,
        too_fast=sum(e.figures.too_fast for e in experts),
    )
