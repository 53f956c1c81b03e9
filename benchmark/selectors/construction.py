"""Reads of a benchmark under construction: projects, drafts, absolute standards."""

from django.db.models import QuerySet

from benchmark.models import (
    AbsoluteStandard,
    AbsoluteStandardVersion,
    ConstructionProject,
    ConstructionSnapshot,
    Dataset,
)


class ProjectNotFound(LookupError):
    """No construction project has that name."""


def project_get(*, name: str) -> ConstructionProject:
    project = ConstructionProject.objects.filter(name=name).first()
    if project is None:
        raise ProjectNotFound(
            f"no construction project named {name!r}: create it with "
            "`heartbench construct create-project`"
        )
    return project


def standards_current() -> dict[str, AbsoluteStandard]:
    """The written standards by ability code (an ability with none is absent)."""
    return {standard.ability: standard for standard in AbsoluteStandard.objects.all()}


def standard_history(*, ability: str) -> QuerySet[AbsoluteStandardVersion]:
    """Every version of an ability's standard, newest first, with its author."""
    return (
        AbsoluteStandardVersion.objects.filter(standard__ability=ability)
        .select_related("author")
        .order_by("-number")
    )


class SnapshotNotFound(LookupError):
    """The dataset is not a snapshot of the project."""


def snapshot_of(*, project: ConstructionProject, dataset: Dataset) -> ConstructionSnapshot:
    """The construction snapshot ``dataset`` is, when it is one of ``project``'s."""
    snapshot = ConstructionSnapshot.objects.filter(project=project, dataset=dataset).first()
    if snapshot is None:
        raise SnapshotNotFound(
            f"{dataset} is not a snapshot of {project}: make one with "
            f"`heartbench construct snapshot --project {project}`"
        )
    return snapshot
