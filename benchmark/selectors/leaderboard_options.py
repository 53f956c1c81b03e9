"""What a leaderboard page offers to choose from: datasets, and the judges that ran on one."""

from django.db.models import Count, Max, Q, QuerySet, Sum

from benchmark.models import Dataset, Judge, JudgeRun, RubricItem, StoredBoard, Verdict
from benchmark.models.construction import SNAPSHOT_QUALITY


def _public() -> QuerySet[Dataset]:
    """The datasets a leaderboard offers: not a construction project's quality snapshot (its
    drafts' rubrics are under review; its scores rank nothing). Reached by name only."""
    return Dataset.objects.exclude(construction_snapshot__purpose=SNAPSHOT_QUALITY)


def leaderboard_datasets() -> list[Dataset]:
    """Every public dataset version, the judged ones first (an empty board helps nobody)."""
    datasets = list(_public().order_by("name", "-version"))
    judged = set(_public().filter(judge_runs__isnull=False).values_list("pk", flat=True))
    return sorted(datasets, key=lambda d: d.pk not in judged)


def leaderboard_default_dataset() -> Dataset | None:
    """The newest public dataset that a judge has run on, else the newest public dataset."""
    datasets = _public().order_by("-created_at", "-id")
    return datasets.filter(judge_runs__isnull=False).first() or datasets.first()


def leaderboard_judges(*, dataset: Dataset) -> list[str]:
    """Names of the judges with a run on ``dataset``, alphabetically."""
    return list(
        Judge.objects.filter(runs__dataset=dataset).order_by("name").values_list("name", flat=True)
        .distinct()
    )  # fmt: skip


def leaderboard_fingerprint(*, dataset: Dataset) -> str:
    """Changes whenever a leaderboard of ``dataset`` could: a judge run or verdict added (both
    are append-only: a forced re-run is a new run), a run finished (the leaderboard reads each
    model's newest finished run) or a criterion edited (version, points)."""
    runs = JudgeRun.objects.filter(dataset=dataset).aggregate(
        n=Count("id"), last=Max("id"), finished=Count("id", filter=Q(status="finished"))
    )
    verdicts = Verdict.objects.filter(run__dataset=dataset).aggregate(n=Count("id"), last=Max("id"))
    rubric = RubricItem.objects.filter(case__dataset=dataset).aggregate(
        n=Count("id"), versions=Sum("version"), points=Sum("points")
    )
    parts = (runs, verdicts, rubric)
    return f"{dataset.pk}:" + ":".join(
        ",".join(str(v) for _, v in sorted(p.items())) for p in parts
    )


def leaderboard_stored_dataset_ids() -> list[int]:
    """The ids of the datasets with a stored leaderboard, each once, in order."""
    kept = StoredBoard.objects.order_by("dataset_id").values_list("dataset_id", flat=True)
    return list(kept.distinct())
