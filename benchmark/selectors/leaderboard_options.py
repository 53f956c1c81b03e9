"""What a leaderboard page offers to choose from: datasets, and the judges that ran on one."""

from benchmark.models import Dataset, Judge


def leaderboard_datasets() -> list[Dataset]:
    """Every dataset version, the ones with judge runs first (an empty board helps nobody)."""
    datasets = list(Dataset.objects.order_by("name", "-version"))
    judged = set(Dataset.objects.filter(judge_runs__isnull=False).values_list("pk", flat=True))
    return sorted(datasets, key=lambda d: d.pk not in judged)


def leaderboard_default_dataset() -> Dataset | None:
    """The newest dataset that a judge has run on, else the newest dataset."""
    datasets = Dataset.objects.order_by("-created_at", "-id")
    return datasets.filter(judge_runs__isnull=False).first() or datasets.first()


def leaderboard_judges(*, dataset: Dataset) -> list[str]:
    """Names of the judges with a run on ``dataset``, alphabetically."""
    return list(
        Judge.objects.filter(runs__dataset=dataset).order_by("name").values_list("name", flat=True)
        .distinct()
    )  # fmt: skip
