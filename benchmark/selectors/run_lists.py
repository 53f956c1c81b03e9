"""Lists of judge and generation runs: by dataset and model, by judge, repeats, most recent."""

from collections.abc import Iterable

from django.db.models import Case, IntegerField, QuerySet, Value, When

from benchmark.models import Dataset, GenerationRun, JudgeRun

RUNNING = (JudgeRun.Status.PENDING, JudgeRun.Status.RUNNING)
# Runs still going sort first.
RUNNING_FIRST = Case(
    When(status__in=RUNNING, then=Value(0)), default=Value(1), output_field=IntegerField()
)


def judge_run_find(*, run_id: int) -> JudgeRun | None:
    """The judge run of this id with its judge, or None."""
    return JudgeRun.objects.select_related("judge").filter(pk=run_id).first()


def judge_runs_for(*, dataset: Dataset, models) -> QuerySet[JudgeRun]:
    """Every run (with its judge) of any of these models on ``dataset``."""
    return JudgeRun.objects.filter(dataset=dataset, model__in=list(models)).select_related("judge")


def judge_runs_of_judges(*, dataset: Dataset, names: Iterable[str]) -> QuerySet[JudgeRun]:
    """Every run (with its judge and model) of the judges of these names on ``dataset``."""
    return JudgeRun.objects.filter(dataset=dataset, judge__name__in=names).select_related(
        "judge", "model"
    )


def judge_repeats(*, runs) -> QuerySet[JudgeRun]:
    """The repeat runs of these runs (runs or ids)."""
    return JudgeRun.objects.filter(repeat_of__in=runs)


def judge_names_finished() -> list[str]:
    """The name of every judge with a finished run, each once, alphabetically."""
    finished = JudgeRun.objects.filter(status=JudgeRun.Status.FINISHED)
    return sorted(set(finished.values_list("judge__name", flat=True)))


def judge_runs_recent(*, limit: int) -> list[JudgeRun]:
    """Judge runs still going first, then the most recent ones, with judge, model, dataset."""
    return list(
        JudgeRun.objects.select_related("judge", "model", "dataset").order_by(
            RUNNING_FIRST, "-created_at", "-id"
        )[:limit]
    )


def generation_runs_recent(*, limit: int) -> QuerySet[GenerationRun]:
    """Generation runs still going first, then the most recent ones, with model and dataset."""
    return GenerationRun.objects.select_related("model", "dataset").order_by(
        RUNNING_FIRST, "-created_at", "-id"
    )[:limit]
