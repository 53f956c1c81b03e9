"""Writes of a benchmark under construction: projects and their draft cases."""

from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from benchmark.audit_actions import BenchmarkAction
from benchmark.importing import ImportFailure
from benchmark.importing.seeds import iter_seeds
from benchmark.models import ConstructionProject, DraftCase
from benchmark.services.audit import audit_record
from benchmark.services.imports.common import named, read_limits


class ProjectError(ValueError):
    """A project cannot be created as asked."""


def project_create(
    *,
    name: str,
    dataset_name: str,
    description: str = "",
    actor: AbstractBaseUser | None = None,
) -> ConstructionProject:
    """A new construction project, whose published dataset will be named ``dataset_name``."""
    name, dataset_name = name.strip(), dataset_name.strip()
    if not name or not dataset_name:
        raise ProjectError("a project needs a name and a dataset name")
    with transaction.atomic():
        if ConstructionProject.objects.filter(name=name).exists():
            raise ProjectError(f"a project named {name!r} exists already")
        project = ConstructionProject.objects.create(
            name=name, dataset_name=dataset_name, description=description, created_by=actor
        )
        audit_record(
            actor=actor,
            action=BenchmarkAction.CONSTRUCTION_PROJECT_CREATE,
            obj=project,
            data={"name": name, "dataset_name": dataset_name},
        )
    return project


@dataclass(frozen=True)
class SeedImportResult:
    project: ConstructionProject
    drafts: list[DraftCase]


def seeds_import(
    *, project: ConstructionProject, path: Path, actor: AbstractBaseUser | None = None
) -> SeedImportResult:
    """Add every seed of a JSONL file to the project as a draft case, or none of them.

    The whole file is validated before anything is written; a seed whose id is already a
    draft of the project is refused on its line (a draft is edited, never imported again).
    """
    with named(path):
        seeds = list(iter_seeds(path, **read_limits()))
        with transaction.atomic():
            ConstructionProject.objects.select_for_update().get(pk=project.pk)
            existing = set(
                project.drafts.filter(
                    question_id__in=[seed.question_id for seed in seeds]
                ).values_list("question_id", flat=True)
            )
            for seed in seeds:
                if seed.question_id in existing:
                    raise ImportFailure(
                        seed.line, f'id "{seed.question_id}" is already a draft of {project}'
                    )
            start = project.drafts.aggregate(last=Max("position"))["last"]
            start = 0 if start is None else start + 1
            drafts = DraftCase.objects.bulk_create(
                DraftCase(
                    project=project,
                    question_id=seed.question_id,
                    position=start + offset,
                    dialogue=seed.dialogue,
                    primary_scene=seed.primary_scene,
                    source=seed.source,
                    notes=seed.notes,
                )
                for offset, seed in enumerate(seeds)
            )
            audit_record(
                actor=actor,
                action=BenchmarkAction.DRAFTS_IMPORT,
                obj=project,
                data={
                    "file": path.name,
                    "drafts": len(drafts),
                    "ids": [seed.question_id for seed in seeds],
                },
            )
    return SeedImportResult(project, drafts)
