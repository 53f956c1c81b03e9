"""Reads of a benchmark under construction: projects, drafts, absolute standards, the
authors of hand-written criteria."""

from typing import TypeVar

from django.contrib.auth import get_user_model
from django.db.models import BooleanField, ExpressionWrapper, F, Q, QuerySet

from benchmark.models import (
    AbsoluteStandard,
    AbsoluteStandardVersion,
    ConstructionProject,
    ConstructionSnapshot,
    Dataset,
    DraftCase,
    DraftCriterion,
    DraftStatus,
    ReferenceRun,
    RewriteRun,
    SynthesisRun,
    Verdict,
)

R = TypeVar("R", RewriteRun, ReferenceRun, SynthesisRun)


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


class DraftNotFound(LookupError):
    """No draft of the project has that question id."""


def draft_get(*, project: ConstructionProject, question_id: str) -> DraftCase:
    draft = project.drafts.filter(question_id=question_id).first()
    if draft is None:
        raise DraftNotFound(f"project {project} has no draft {question_id!r}")
    return draft


def draft_question_ids(*, draft_ids: list[int]) -> dict[int, str]:
    """The question id of each of these drafts, by draft id."""
    return dict(DraftCase.objects.filter(pk__in=draft_ids).values_list("pk", "question_id"))


def user_get(*, username: str):
    """The account called ``username`` (an author of hand-written criteria)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise LookupError(f"no user named {username!r}")
    return user


def draft_run_get(*, model_cls: type[R], run_id: int) -> R:
    """A rewrite, reference or synthesis run with its project and model."""
    return model_cls.objects.select_related("project", "model").get(pk=run_id)


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


def project_draft_rows(*, project: ConstructionProject) -> list[dict]:
    """Each draft's place in the funnel, in import order (for the construction report)."""
    return list(
        project.drafts.order_by("position")
        .annotate(
            rewritten=ExpressionWrapper(Q(rewrite__isnull=False), output_field=BooleanField())
        )
        .values(
            "question_id", "status", "removed_stage", "removed_reason", "difficulty",
            "difficulty_reason", "rewritten",
        )
    )  # fmt: skip


def project_criterion_rows(*, project: ConstructionProject) -> list[dict]:
    """Each draft criterion ever written in the project, with its state and why it left."""
    return list(
        DraftCriterion.objects.filter(draft__project=project)
        .order_by("draft__position", "position")
        .values("id", "draft__question_id", "status", "removed_stage", "removed_reason")
    )


def project_snapshot_rows(*, project: ConstructionProject) -> list[dict]:
    """The project's snapshots, oldest first: purpose, dataset, the saturation analysis prune
    kept, and which draft criterion each (question id, rubric position) froze."""
    rows = []
    for snapshot in project.snapshots.select_related("dataset").order_by("created_at", "id"):
        mapped = snapshot.criteria.values_list(
            "rubric_item__case__question_id", "rubric_item__position", "criterion_id"
        )
        rows.append(
            {
                "dataset": str(snapshot.dataset),
                "purpose": snapshot.purpose,
                "cases": snapshot.dataset.case_count,
                "saturation": snapshot.saturation,
                "proposed_hard": snapshot.proposed_hard,
                "criteria": {(qid, position): pk for qid, position, pk in mapped},
            }
        )
    return rows


def project_proposed_hard(*, project: ConstructionProject) -> list[str]:
    """The drafts the latest pruning proposed for the Hard set that are still in the funnel,
    in funnel order: what the difficulty tier is asked to mark first."""
    pruned = project.snapshots.exclude(saturation={}).order_by("-created_at", "-id").first()
    if pruned is None:
        return []
    return list(
        project.drafts.filter(status=DraftStatus.ACTIVE, question_id__in=pruned.proposed_hard)
        .order_by("position")
        .values_list("question_id", flat=True)
    )


def drafts_in(*, statuses) -> QuerySet[DraftCase]:
    """The drafts in any of these statuses, unordered."""
    return DraftCase.objects.filter(status__in=statuses)


def snapshot_verdicts(*, criteria, models) -> QuerySet[Verdict]:
    """The run-0 verdicts on the snapshot items that froze these draft criteria, for the
    snapshot's response of these models to the same case; with run judge, response and the
    item's snapshot source, oldest snapshot first, then by run."""
    return (
        Verdict.objects.filter(
            rubric_item__draft_source__criterion__in=criteria,
            response__model__in=models,
            response__case=F("rubric_item__case"),
            run__repeat_of__isnull=True,
        )
        .select_related("run__judge", "response", "rubric_item__draft_source__snapshot")
        .order_by("rubric_item__draft_source__snapshot__created_at", "run_id")
    )


def project_drafts(*, project: ConstructionProject) -> QuerySet[DraftCase]:
    """The project's drafts, whatever their status, unordered."""
    return DraftCase.objects.filter(project=project)


def author_drafts(*, user) -> QuerySet[DraftCase]:
    """The drafts whose rubric ``user`` writes, whatever their status, unordered."""
    return DraftCase.objects.filter(author=user)


def active_draft_criteria() -> QuerySet[DraftCriterion]:
    """Every draft criterion still active (not removed or merged), unordered."""
    return DraftCriterion.objects.filter(status=DraftCriterion.Status.ACTIVE)
