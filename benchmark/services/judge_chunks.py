"""A judge run shared by several Celery workers: split into chunks of responses, closed by
whichever chunk finishes the last criterion.

Every chunk task is idempotent: it judges only its responses' criteria that have no verdict
yet, and a verdict written twice (a redelivered chunk racing the original) is dropped by the
unique (run, rubric item) constraint, so every verdict is stored exactly once however often a
chunk runs. No chord or result backend is needed to notice the end: each chunk closes the run
when the database says nothing is left.

The database, not the broker, is the record of what was asked for: a run queued while the
broker is unreachable stays pending, marked as waiting, and is handed to the workers by
:func:`judge_runs_dispatch_waiting` once the broker answers again
(:mod:`benchmark.services.dispatch`, shared with generation runs).
"""

from django.db import transaction
from django.utils import timezone

from benchmark.models import JudgeRun
from benchmark.selectors import runs as run_selectors
from benchmark.services.announce import run_ended
from benchmark.services.dispatch import runs_dispatch_waiting
from benchmark.services.judging import judge_run_execute
from benchmark.services.llm_jobs import EngineOptions, RunOutcome
from config.locks import row_lock


def judge_runs_dispatch_waiting() -> list[int]:
    """Queue every run left waiting while the broker was down; returns those now queued."""
    return runs_dispatch_waiting(model_cls=JudgeRun)


def judge_run_split(*, run_id: int, chunk_size: int) -> list[list[int]]:
    """The ids of the run's responses with criteria left to judge, in chunks of ``chunk_size``.

    Marks the run running; a run with nothing left is closed at once (and gets no chunks).
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    with transaction.atomic():
        run = row_lock(JudgeRun, run_id)
        todo = [response.id for response in run_selectors.judge_run_todo(run=run)]
        if todo:
            counts = run_selectors.judge_run_counts(run=run)
            run.total, run.done, run.errors = counts["total"], counts["done"], counts["errors"]
            run.status = JudgeRun.Status.RUNNING
            run.save(update_fields=["status", *counts])
    if not todo:
        judge_run_close_if_done(run_id=run_id)
    return [todo[start : start + chunk_size] for start in range(0, len(todo), chunk_size)]


def judge_chunk_execute(
    *, run_id: int, response_ids: list[int], options: EngineOptions
) -> RunOutcome:
    """Judge what is left of these responses, then close the run if that was the last of it."""
    outcome = judge_run_execute(run_id=run_id, options=options, response_ids=response_ids)
    if outcome.stop_reason:
        return outcome
    judge_run_close_if_done(run_id=run_id)
    return outcome


def judge_chunk_hold(*, run_id: int, task_id: str, worker: str, responses: int) -> None:
    """Record that ``worker`` is judging the chunk task ``task_id`` (its run's page says who
    holds which chunk; a redelivered chunk's new worker replaces the dead one's entry)."""
    with transaction.atomic():
        run = row_lock(JudgeRun, run_id)
        run.chunks_held[task_id] = {
            "worker": worker,
            "since": timezone.now().isoformat(timespec="seconds"),
            "responses": responses,
        }
        run.save(update_fields=["chunks_held"])


def judge_chunk_release(*, run_id: int, task_id: str) -> None:
    """The chunk task ended (done, stopped, or to be retried): nobody holds it now."""
    with transaction.atomic():
        run = row_lock(JudgeRun, run_id)
        if run.chunks_held.pop(task_id, None) is not None:
            run.save(update_fields=["chunks_held"])


def judge_run_close_if_done(*, run_id: int) -> bool:
    """Mark the run finished when every criterion in scope has a verdict (error ones count)."""
    with transaction.atomic():
        run = row_lock(JudgeRun, run_id)
        if run.status == JudgeRun.Status.FINISHED:
            return True
        counts = run_selectors.judge_run_counts(run=run)
        if counts["done"] < counts["total"]:
            return False
        run.total, run.done, run.errors = counts["total"], counts["done"], counts["errors"]
        run.status, run.stop_reason = JudgeRun.Status.FINISHED, ""
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "stop_reason", "finished_at", *counts])
        run_ended(run=run)
        return True
