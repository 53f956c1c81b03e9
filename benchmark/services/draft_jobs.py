"""What the LLM jobs on a project's drafts share (rewriting seeds, reference models' answers,
rubric synthesis): one unfinished run per project and model, continued rather than started
again; the drafts that got nothing, listed on the run; queuing a run for a worker. They run
through ``benchmark.services.generation.model_job_execute``, as generation does."""

from typing import TypeVar

from django.db import transaction

from benchmark.llm.accounting import Tally
from benchmark.llm.engine import Call, WorkItem
from benchmark.llm.progress import Progress
from benchmark.models import (
    ConstructionProject,
    ModelUnderTest,
    ReferenceRun,
    RewriteRun,
    SynthesisRun,
)
from benchmark.services.dispatch import run_queue, runs_dispatch_waiting
from benchmark.services.generation import MAX_LISTED_FAILURES
from benchmark.services.llm_jobs import RunStore

R = TypeVar("R", RewriteRun, ReferenceRun, SynthesisRun)
DRAFT_RUN_MODELS = (RewriteRun, ReferenceRun, SynthesisRun)


def project_run_continue(
    *, run_model: type[R], project: ConstructionProject, model: ModelUnderTest, sample_ids: str = ""
) -> R:
    """Continue the project's unfinished ``run_model`` run by ``model`` over the same drafts
    (``sample_ids``: their question ids; empty, every draft), or start one."""
    with transaction.atomic():
        newest = (
            run_model.objects.select_for_update()
            .filter(project=project, model=model, sample_ids=sample_ids)
            .order_by("-created_at", "-id")
            .first()
        )
        if newest is not None and newest.status != run_model.Status.FINISHED:
            return newest
        return run_model.objects.create(project=project, model=model, sample_ids=sample_ids)


def draft_run_queue(*, run: RewriteRun | ReferenceRun | SynthesisRun) -> None:
    """Have a worker execute (or continue) the run once this transaction commits; with the
    broker down it waits, like a judge run (:mod:`benchmark.services.dispatch`)."""
    run_queue(model_cls=type(run), run_id=run.pk)


def draft_runs_dispatch_waiting() -> list[str]:
    """Queue every rewrite, reference and synthesis run left waiting while the broker was
    down; ``model:id`` of each one queued."""
    return [
        f"{model_cls._meta.model_name}:{run_id}"
        for model_cls in DRAFT_RUN_MODELS
        for run_id in runs_dispatch_waiting(model_cls=model_cls)
    ]


class FailureListingStore(RunStore):
    """A store that lists the session's failed drafts (the first 50, with the reason) on the
    run at each checkpoint, under ``failures``."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.failures: list[dict] = []

    def failure_note(self, unit: WorkItem, reason: str) -> None:
        if len(self.failures) < MAX_LISTED_FAILURES:
            self.failures.append({"draft_id": unit.ident, "reason": reason[:300]})

    async def fail(self, unit: WorkItem, reason: str, raw: str, call: Call) -> None:
        self.failure_note(unit, reason)

    async def checkpoint(self, progress: Progress, tally: Tally) -> None:
        await super().checkpoint(progress, tally)
        listed, run_model = list(self.failures), type(self.run)
        await self.call_sync(
            lambda: run_model.objects.filter(pk=self.run.pk).update(failures=listed)
        )
