"""What the staff import page offers as choices: the datasets to attach answers and verdicts
to, and the model and judge names already known (a new name is created by the import)."""

from dataclasses import dataclass

from benchmark.models import Dataset, Judge, ModelUnderTest
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve


@dataclass(frozen=True)
class DatasetChoice:
    # What `--dataset` takes: NAME:vN, so a choice never moves to a newer version.
    key: str
    label: str
    cases: int
    criteria: int


@dataclass(frozen=True)
class ImportChoices:
    datasets: list[DatasetChoice]
    # The dataset the commands read without --dataset, if there is one.
    default_dataset: str | None
    models: list[str]
    judges: list[str]


def import_choices() -> ImportChoices:
    """Every dataset version (newest first within a name), known model and judge names."""
    datasets = [
        DatasetChoice(
            key=f"{d.name}:v{d.version}",
            label=str(d),
            cases=d.case_count,
            criteria=d.criterion_count,
        )
        for d in Dataset.objects.order_by("name", "-version").only(
            "name", "version", "is_demo", "case_count", "criterion_count"
        )
    ]
    try:
        default = dataset_resolve(name=None)
    except DatasetNotFound:
        default_key = None
    else:
        default_key = f"{default.name}:v{default.version}"
    return ImportChoices(
        datasets=datasets,
        default_dataset=default_key,
        models=list(ModelUnderTest.objects.order_by("name").values_list("name", flat=True)),
        judges=list(Judge.objects.order_by("name").values_list("name", flat=True)),
    )
