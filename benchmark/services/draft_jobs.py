"""What the LLM jobs on a project's drafts share (rewriting seeds, reference models' answers):
one unfinished run per project and model, continued rather than started again. They run
through ``benchmark.services.generation.model_job_execute``, as generation does."""

from typing import TypeVar

from django.db import transaction

from benchmark.models import ConstructionProject, ModelUnderTest, ReferenceRun, RewriteRun

R = TypeVar("R", RewriteRun, ReferenceRun)


def project_run_continue(
    *, run_model: type[R], project: ConstructionProject, model: ModelUnderTest
) -> R:
    """Continue the project's unfinished ``run_model`` run by ``model``, or start one."""
    with transaction.atomic():
        newest = (
            run_model.objects.select_for_update()
            .filter(project=project, model=model)
            .order_by("-created_at", "-id")
            .first()
        )
        if newest is not None and newest.status != run_model.Status.FINISHED:
            return newest
        return run_model.objects.create(project=project, model=model)
