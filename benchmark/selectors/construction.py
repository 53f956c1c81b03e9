"""Reads of a benchmark under construction: projects, drafts, absolute standards, the
authors of hand-written criteria."""

from typing import TypeVar

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from benchmark.models import (
    AbsoluteStandard,
    AbsoluteStandardVersion,
    ConstructionProject,
    DraftCase,
    ReferenceRun,
    RewriteRun,
    SynthesisRun,
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
