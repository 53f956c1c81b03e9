"""Dataset reads shared by the importers and the commands that take `--dataset NAME[:vN]`."""

from django.conf import settings
from django.db.models import Max, QuerySet

from benchmark.models import Case, Dataset

# The `--dataset` help of the commands that read one by ``dataset_resolve``'s default.
DATASET_HELP = (
    "NAME or NAME:vN (default: HEARTBENCH_DEFAULT_DATASET, else the only dataset, demo data aside)"
)


class DatasetNotFound(LookupError):
    """No dataset matches what the user asked for."""


def dataset_resolve(*, name: str | None) -> Dataset:
    """`NAME` (its latest version), `NAME:vN`, or None for the default dataset.

    The default is the dataset named by ``HEARTBENCH_DEFAULT_DATASET``, else the only dataset
    (demo datasets left out beside real ones); with several, the user is asked to name one. It
    is never simply the newest import, which a test import or a pilot would quietly replace.
    """
    datasets = Dataset.objects.order_by("-created_at", "-id")
    if name is None:
        name = settings.HEARTBENCH_DEFAULT_DATASET or _only_dataset_name()
    base, _, version = name.partition(":v")
    matching = datasets.filter(name=base)
    if version:
        matching = matching.filter(version=int(version)) if version.isdigit() else matching.none()
    dataset = matching.order_by("-version").first()
    if dataset is None:
        raise DatasetNotFound(f"no dataset named {name!r}")
    return dataset


def _only_dataset_name() -> str:
    real = Dataset.objects.filter(is_demo=False)
    names = sorted(set((real if real.exists() else Dataset.objects).values_list("name", flat=True)))
    if len(names) == 1:
        return names[0]
    if not names:
        raise DatasetNotFound("no dataset imported yet: run `heartbench import-dataset PATH`")
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    raise DatasetNotFound(
        f"{len(names)} datasets ({shown}): say which with --dataset NAME[:vN], or name the "
        "default in HEARTBENCH_DEFAULT_DATASET"
    )


def dataset_find_by_content(*, name: str, content_hash: str) -> Dataset | None:
    """The version of dataset `name` holding exactly this content, if one was imported."""
    return Dataset.objects.filter(name=name, content_hash=content_hash).first()


def dataset_find_twin(*, name: str, content_hash: str) -> Dataset | None:
    """A dataset of another name holding exactly this content, if one was imported."""
    twins = Dataset.objects.filter(content_hash=content_hash).exclude(name=name)
    return twins.order_by("created_at", "id").first()


def dataset_next_version(*, name: str) -> int:
    latest = Dataset.objects.filter(name=name).aggregate(latest=Max("version"))["latest"]
    return (latest or 0) + 1


def dataset_newest_named(*, name: str) -> Dataset | None:
    """The newest version of the dataset of exactly this name, or None."""
    return Dataset.objects.filter(name=name).order_by("-version").first()


def dataset_names() -> list[str]:
    """The name of every dataset, each once, alphabetically."""
    return sorted(set(Dataset.objects.values_list("name", flat=True)))


def datasets_with_responses() -> QuerySet[Dataset]:
    """The datasets holding at least one model's response."""
    return Dataset.objects.filter(cases__responses__isnull=False).distinct()


def cases_by_id(*, ids) -> QuerySet[Case]:
    """The cases of these ids (ids, or a subquery of ids), unordered."""
    return Case.objects.filter(pk__in=ids)
