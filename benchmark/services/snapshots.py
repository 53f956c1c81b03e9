"""Freezing a construction project's drafts as an ordinary dataset version: the *quality*
snapshot a scoring round judges, and the *published* version of the accepted drafts.

There is one writer of datasets: the drafts are written as an upstream JSONL file
(docs/formats.md) and imported by ``dataset_import``, so the content hash, the counts, the
warnings and the rows are made exactly as for any imported file, and the published file
re-imports with ``heartbench import-dataset`` unchanged. ``SnapshotCriterion`` rows map each
rubric item back to the draft criterion and the version it was frozen at.
"""

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import (
    ConstructionProject,
    ConstructionSnapshot,
    DraftCase,
    DraftCriterion,
    DraftResponse,
    DraftStatus,
    Response,
    RubricItem,
    SnapshotCriterion,
)
from benchmark.models.construction import SNAPSHOT_PUBLISHED, SNAPSHOT_QUALITY
from benchmark.rubric_rules import rubric_problems
from benchmark.services.audit import audit_record
from benchmark.services.criteria import DIFFICULTIES, draft_case_publish
from benchmark.services.imports import dataset_import
from benchmark.services.imports.common import INSERT_BATCH
from benchmark.taxonomy import BY_CODE, CATASTROPHIC

# A quality snapshot is a version of "<the project's dataset name>-draft": never the name the
# project publishes under, and kept off the leaderboards (benchmark.selectors.leaderboard_options).
SNAPSHOT_SUFFIX = "-draft"
# Drafts get no difficulty until the difficulty tier marks them; a quality snapshot needs one.
UNMARKED_DIFFICULTY = "normal"
REFERENCE_SOURCE = "reference"


class SnapshotError(ValueError):
    """The drafts cannot be frozen or published as asked; nothing was written."""


@dataclass(frozen=True)
class SnapshotResult:
    snapshot: ConstructionSnapshot
    created: bool  # False: the same content was frozen already, as this snapshot
    left_out: list[str]  # active drafts with no active criterion, not in the snapshot
    responses: int  # reference answers copied as responses


def snapshot_dataset_name(*, project: ConstructionProject) -> str:
    return project.dataset_name + SNAPSHOT_SUFFIX


def draft_case_line(*, draft: DraftCase, criteria: list[DraftCriterion], difficulty: str) -> dict:
    """The draft as one upstream case: its rewrite when it has one, else the seed's dialogue."""
    return {
        "question_id": draft.question_id,
        "dialogue": draft.rewrite or draft.dialogue,
        "rubric": [
            {"dimension": BY_CODE[c.ability].zh, "score": c.points, "content": c.text}
            for c in criteria
        ],
        "difficulty": difficulty,
        "primary_scene": draft.primary_scene,
        "secondary_scene": "",
    }


def _active_criteria(drafts: Iterable[DraftCase]) -> dict[int, list[DraftCriterion]]:
    found: dict[int, list[DraftCriterion]] = {draft.pk: [] for draft in drafts}
    rows = (
        DraftCriterion.objects.filter(draft_id__in=list(found), status=DraftCriterion.Status.ACTIVE)
        .only("id", "draft_id", "position", "ability", "points", "text", "version")
        .order_by("draft_id", "position")
    )
    for criterion in rows:
        found[criterion.draft_id].append(criterion)
    for criteria in found.values():  # the catastrophic one last, as upstream files end (其他)
        criteria.sort(key=lambda c: c.ability == CATASTROPHIC)
    return found


def _write_lines(path: Path, lines: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _freeze(
    *,
    project: ConstructionProject,
    name: str,
    purpose: str,
    lines: list[dict],
    criteria: dict[str, list[DraftCriterion]],
    path: Path,
    actor: AbstractBaseUser | None,
) -> tuple[ConstructionSnapshot, bool]:
    """Import ``lines`` as a version of ``name`` and map its rubric to the draft criteria;
    call inside a transaction. ``criteria`` maps each question id to its criteria in order."""
    _write_lines(path, lines)
    result = dataset_import(
        path=path, name=name, source=f"construction project {project.name}", actor=actor
    )
    if not result.created:
        existing = ConstructionSnapshot.objects.filter(
            project=project, dataset=result.dataset
        ).first()
        if existing is None:
            raise SnapshotError(
                f"{result.dataset} holds exactly this content but is no snapshot of {project}"
            )
        return existing, False
    snapshot = ConstructionSnapshot.objects.create(
        project=project, dataset=result.dataset, purpose=purpose, created_by=actor
    )
    # Plain rows, not model instances: a snapshot maps thousands of criteria.
    items = RubricItem.objects.filter(case__dataset=result.dataset).values_list(
        "id", "case__question_id", "position"
    )
    SnapshotCriterion.objects.bulk_create(
        (
            SnapshotCriterion(
                snapshot=snapshot,
                rubric_item_id=item_id,
                criterion_id=(source := criteria[question_id][position]).pk,
                criterion_version=source.version,
            )
            for item_id, question_id, position in items
        ),
        batch_size=INSERT_BATCH,
    )
    audit_record(
        actor=actor,
        action=BenchmarkAction.CONSTRUCTION_SNAPSHOT_CREATE,
        obj=snapshot,
        data={"project": project.name, "dataset": str(result.dataset), "purpose": purpose},
    )
    return snapshot, True


def _staging(directory: Path | None) -> Path:
    handle, name = tempfile.mkstemp(suffix=".jsonl", dir=directory)
    os.close(handle)
    return Path(name)


def snapshot_create(
    *, project: ConstructionProject, actor: AbstractBaseUser | None = None
) -> SnapshotResult:
    """Freeze the project's active drafts with their active criteria as a new version of
    ``snapshot_dataset_name`` (purpose "quality"), with the reference answers as responses of
    their models, ready for ``heartbench judge`` and ``heartbench saturation``.

    An active draft with no active criterion cannot be judged and is left out (listed in the
    result); with no draft left, nothing is written. The same content as an earlier snapshot
    returns that snapshot (``created`` False)."""
    drafts = list(project.drafts.filter(status=DraftStatus.ACTIVE).order_by("position"))
    if not drafts:
        raise SnapshotError(f"{project} has no draft in the funnel: nothing to snapshot")
    criteria = _active_criteria(drafts)
    kept = [draft for draft in drafts if criteria[draft.pk]]
    left_out = [draft.question_id for draft in drafts if not criteria[draft.pk]]
    if not kept:
        raise SnapshotError(
            f"no draft of {project} has an active criterion: write or synthesise criteria first"
        )
    lines = [
        draft_case_line(
            draft=draft,
            criteria=criteria[draft.pk],
            difficulty=draft.difficulty or UNMARKED_DIFFICULTY,
        )
        for draft in kept
    ]
    path = _staging(None)
    try:
        with transaction.atomic():
            snapshot, created = _freeze(
                project=project,
                name=snapshot_dataset_name(project=project),
                purpose=SNAPSHOT_QUALITY,
                lines=lines,
                criteria={draft.question_id: criteria[draft.pk] for draft in kept},
                path=path,
                actor=actor,
            )
            responses = _references_copy(snapshot=snapshot, drafts=kept) if created else 0
    finally:
        path.unlink(missing_ok=True)
    return SnapshotResult(snapshot, created, left_out, responses)


def _references_copy(*, snapshot: ConstructionSnapshot, drafts: list[DraftCase]) -> int:
    """Each reference answer becomes a response of its model to the snapshot's case."""
    cases = dict(snapshot.dataset.cases.values_list("question_id", "id"))
    answers = DraftResponse.objects.filter(draft__in=drafts).values_list(
        "model_id", "draft__question_id", "text"
    )
    created = Response.objects.bulk_create(
        (
            Response(model_id=model_id, case_id=cases[question_id], text=text,
                     source=REFERENCE_SOURCE)
            for model_id, question_id, text in answers
        ),
        batch_size=INSERT_BATCH,
    )  # fmt: skip
    return len(created)


def _publish_problems(drafts: list[DraftCase], criteria: dict[int, list]) -> list[str]:
    problems = []
    for draft in drafts:
        rubric = [(c.ability, c.points, c.text) for c in criteria[draft.pk]]
        problems += [f"{draft.question_id}: {problem}" for problem in rubric_problems(rubric)]
        if draft.difficulty not in DIFFICULTIES:
            problems.append(f"{draft.question_id}: no difficulty decision (normal or hard)")
    return problems


def project_publish(
    *,
    project: ConstructionProject,
    out: Path | None = None,
    actor: AbstractBaseUser | None = None,
) -> ConstructionSnapshot:
    """Publish the drafts the panel accepted, with their active criteria and the difficulty
    the experts decided, as a new immutable version of the project's dataset name (purpose
    "published"); mark them published; write the upstream JSONL to ``out`` when given.

    Refuses, writing nothing, when no draft is accepted, when an accepted draft's active
    criteria do not make a rubric (`benchmark.rubric_rules.rubric_problems`: 4–24 criteria,
    exactly one catastrophic, one with positive points, no text twice) or it has no difficulty
    decision (every such draft is named with its reasons), or when the same content is
    published already."""
    if out is not None and not out.parent.is_dir():
        raise SnapshotError(f"{out.parent} is not a directory")
    drafts = list(project.drafts.filter(status=DraftStatus.ACCEPTED).order_by("position"))
    if not drafts:
        raise SnapshotError(f"no draft of {project} is accepted by the panel: nothing to publish")
    criteria = _active_criteria(drafts)
    problems = _publish_problems(drafts, criteria)
    if problems:
        raise SnapshotError("cannot publish, nothing written:\n  " + "\n  ".join(problems))
    lines = [
        draft_case_line(draft=draft, criteria=criteria[draft.pk], difficulty=draft.difficulty)
        for draft in drafts
    ]
    path = _staging(out.parent if out is not None else None)
    try:
        with transaction.atomic():
            snapshot, created = _freeze(
                project=project,
                name=project.dataset_name,
                purpose=SNAPSHOT_PUBLISHED,
                lines=lines,
                criteria={draft.question_id: criteria[draft.pk] for draft in drafts},
                path=path,
                actor=actor,
            )
            if not created:
                raise SnapshotError(f"the same content is published already, as {snapshot.dataset}")
            for draft in drafts:
                draft_case_publish(draft=draft, dataset=snapshot.dataset, actor=actor)
        if out is not None:
            os.replace(path, out)
    finally:
        path.unlink(missing_ok=True)
    return snapshot
