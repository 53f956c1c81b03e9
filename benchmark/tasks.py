"""Celery tasks: thin, take ids, idempotent (a finished run is left alone), bounded retries.

A generation run is one task on the ``generate`` queue: it asks only for the cases the model
has not answered, so a repeat (a redelivery, a retry, a second queuing) resumes it.

A rewrite, reference or synthesis run (the jobs on a construction project's drafts) is one
task on the ``generate`` queue too, resumed the same way.

A judge run is one dispatch task that splits it into chunk tasks on the ``judge`` queue, so
every worker serving that queue takes a share. ``acks_late`` with ``reject_on_worker_lost``
(settings) hands a chunk whose worker died back to the broker, and the chunk is idempotent.
"""

import contextlib
import logging

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings

# The project's Celery app, the default in every thread, before any task here is used.
import config.celery  # noqa: F401
from benchmark.models import GenerationRun, JudgeRun, LLMRun, ReferenceRun, RewriteRun, SynthesisRun
from benchmark.selectors.construction import draft_run_get
from benchmark.selectors.runs import generation_run_get, judge_run_get
from benchmark.services.draft_jobs import draft_runs_dispatch_waiting
from benchmark.services.generation import (
    generation_options_for_worker,
    generation_run_execute,
    generation_run_fail,
    generation_runs_dispatch_waiting,
    model_options_for_worker,
)
from benchmark.services.judge_chunks import (
    judge_chunk_execute,
    judge_chunk_hold,
    judge_chunk_release,
    judge_run_split,
    judge_runs_dispatch_waiting,
)
from benchmark.services.judging import engine_options_for_worker
from benchmark.services.llm_jobs import LLMJobConfigError, llm_run_fail
from benchmark.services.references import reference_run_execute
from benchmark.services.rewrite import rewrite_run_execute
from benchmark.services.synthesis import synthesis_run_execute


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def judge_run_task(self, *, run_id: int) -> dict:
    """Split what the run has not judged yet into chunk tasks (a repeat resumes the run)."""
    run = judge_run_get(run_id=run_id)
    if run.status == JudgeRun.Status.FINISHED:
        return {"status": run.status}
    try:
        chunks = judge_run_split(run_id=run_id, chunk_size=settings.HEARTBENCH_JUDGE_CHUNK)
    except Exception as exc:  # a lost database: retry, nothing was sent yet
        raise self.retry(exc=exc) from exc
    for response_ids in chunks:
        judge_chunk_task.delay(run_id=run_id, response_ids=response_ids)
    return {"chunks": len(chunks)}


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def judge_chunk_task(self, *, run_id: int, response_ids: list[int]) -> dict:
    """Judge these responses' criteria that have no verdict yet; close the run if done."""
    run = judge_run_get(run_id=run_id)
    if run.status == JudgeRun.Status.FINISHED:
        return {}
    held = not self.request.is_eager
    try:
        if held:
            worker = self.request.hostname or ""
            judge_chunk_hold(
                run_id=run_id, task_id=self.request.id, worker=worker, responses=len(response_ids)
            )
        outcome = judge_chunk_execute(
            run_id=run_id,
            response_ids=response_ids,
            options=engine_options_for_worker(judge=run.judge),
        )
    except Exception as exc:  # a lost database or endpoint: retry, resuming where it stopped
        raise self.retry(exc=exc) from exc
    finally:
        if held:
            with contextlib.suppress(Exception):  # a lost database: the retry holds it again
                judge_chunk_release(run_id=run_id, task_id=self.request.id)
    return {"status": outcome.status, "stop_reason": outcome.stop_reason}


@shared_task(acks_late=True)
def judge_dispatch_waiting_task() -> list[int]:
    """Queue the runs that were asked for while the broker was down (a periodic sweep)."""
    return judge_runs_dispatch_waiting()


@shared_task(acks_late=True)
def leaderboard_warm_task(*, dataset_id: int) -> bool:
    """The dataset's board computed and stored after a judge run ended, on the ``reports``
    queue (``benchmark.services.warming``)."""
    # Deferred: the board loads numpy, and the web process imports this module to queue runs.
    from benchmark.services.stored_board import leaderboard_warm

    return leaderboard_warm(dataset_id=dataset_id)


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def generation_run_task(self, *, run_id: int) -> dict:
    """Generate the run's missing answers; a finished run is left alone."""
    run = generation_run_get(run_id=run_id)
    if run.status == GenerationRun.Status.FINISHED:
        return {"status": run.status}
    try:
        outcome = generation_run_execute(
            run_id=run_id, options=generation_options_for_worker(run=run)
        )
    except LLMJobConfigError as exc:  # no base URL, no price for a budget: retrying cannot help
        generation_run_fail(run_id=run_id, reason=str(exc))
        return {"status": GenerationRun.Status.FAILED, "error": str(exc)}
    except Exception as exc:  # a lost database or endpoint: retry, resuming where it stopped
        raise self.retry(exc=exc) from exc
    return {"status": outcome.status, "stop_reason": outcome.stop_reason}


@shared_task(acks_late=True)
def generation_dispatch_waiting_task() -> list[int]:
    """Queue the generation runs asked for while the broker was down (a periodic sweep)."""
    return generation_runs_dispatch_waiting()


def _draft_run(task, *, model_cls: type[LLMRun], run_id: int) -> dict:
    """Execute a run on a project's drafts with the worker's key and the model's limits; a
    finished run is left alone, one that cannot start fails once with the reason."""
    run = draft_run_get(model_cls=model_cls, run_id=run_id)
    if run.status == LLMRun.Status.FINISHED:
        return {"status": run.status}
    execute = _executors()[model_cls]
    try:
        outcome = execute(run=run, options=model_options_for_worker(model=run.model))
    except LLMJobConfigError as exc:  # no base URL, no price for a budget: retrying cannot help
        llm_run_fail(model_cls=model_cls, run_id=run_id, reason=str(exc))
        return {"status": LLMRun.Status.FAILED, "error": str(exc)}
    except Exception as exc:  # a lost database or endpoint: retry, resuming where it stopped
        raise task.retry(exc=exc) from exc
    return {"status": outcome.status, "stop_reason": outcome.stop_reason}


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def construction_rewrite_run_task(self, *, run_id: int) -> dict:
    """Rewrite the seed dialogues the run's project has no rewrite of yet."""
    return _draft_run(self, model_cls=RewriteRun, run_id=run_id)


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def construction_reference_run_task(self, *, run_id: int) -> dict:
    """Have the run's reference model answer the drafts it has not answered yet."""
    return _draft_run(self, model_cls=ReferenceRun, run_id=run_id)


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def construction_synthesis_run_task(self, *, run_id: int) -> dict:
    """Draft the criteria of the run's drafts that have none yet."""
    return _draft_run(self, model_cls=SynthesisRun, run_id=run_id)


def _executors() -> dict:
    # Looked up when a task runs, so a test may replace an execute function of this module.
    return {
        RewriteRun: rewrite_run_execute,
        ReferenceRun: reference_run_execute,
        SynthesisRun: synthesis_run_execute,
    }


@shared_task(acks_late=True)
def construction_dispatch_waiting_task() -> list[str]:
    """Queue the runs on drafts asked for while the broker was down (a periodic sweep)."""
    return draft_runs_dispatch_waiting()


@worker_ready.connect
def judge_dispatch_waiting_at_start(**kwargs) -> None:
    # A worker that has just reached the broker is the first to know it is up again.
    log = logging.getLogger(__name__)
    queued = judge_runs_dispatch_waiting()
    if queued:
        log.warning("queued judge runs left waiting: %s", queued)
    queued = generation_runs_dispatch_waiting()
    if queued:
        log.warning("queued generation runs left waiting: %s", queued)
    queued = draft_runs_dispatch_waiting()
    if queued:
        log.warning("queued runs on drafts left waiting: %s", queued)
