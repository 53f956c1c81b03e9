"""Handing a background run (a judge run or a generation run) to the Celery workers.

The database, not the broker, is the record of what was asked for. Queuing a run marks it
pending and publishes its task once the caller's transaction commits; when the broker cannot
be reached the run stays pending, marked as waiting, and a sweep (workers run one when they
reach the broker, and ``heartbench worker --beat`` every minute) publishes it later. Judge and
generation runs share this code; only their model and their task differ.

Services never import the tasks (tasks call services, not the reverse): each run model's task
is registered here by ``BenchmarkConfig.ready()`` (:func:`run_task_register`).
"""

import logging
from typing import TYPE_CHECKING

from django.db import transaction

from benchmark.models import LLMRun
from config.publish import task_publish

if TYPE_CHECKING:  # Celery loads with the first task queued (config.lazy_import)
    from celery import Task

logger = logging.getLogger(__name__)
# The task that executes a run of each run model, by the run's id.
RUN_TASKS: dict[type[LLMRun], "Task"] = {}


def run_task_register(*, model_cls: type[LLMRun], task: "Task") -> None:
    """Make ``task`` (taking ``run_id``) the one that executes runs of ``model_cls``."""
    RUN_TASKS[model_cls] = task


def run_queue(*, model_cls: type[LLMRun], run_id: int) -> None:
    """Mark the run pending and have its task run it once this transaction commits.

    A finished run is left finished (its task does nothing for it).
    """
    with transaction.atomic():
        model_cls.objects.filter(pk=run_id).exclude(status=LLMRun.Status.FINISHED).update(
            status=LLMRun.Status.PENDING
        )
        transaction.on_commit(lambda: run_dispatch(model_cls=model_cls, run_id=run_id))


def run_dispatch(*, model_cls: type[LLMRun], run_id: int) -> bool:
    """Publish the run's task; False when the broker is down and the run waits for it."""
    exc = task_publish(RUN_TASKS[model_cls], kwargs={"run_id": run_id})
    if exc is not None:
        logger.warning(
            "broker unreachable (%s): %s %s stays pending until it is back",
            exc,
            model_cls._meta.verbose_name,
            run_id,
        )
        _dispatch_mark(model_cls=model_cls, run_id=run_id, waiting=True)
        return False
    _dispatch_mark(model_cls=model_cls, run_id=run_id, waiting=False)
    return True


def runs_dispatch_waiting(*, model_cls: type[LLMRun]) -> list[int]:
    """Publish every run of ``model_cls`` left waiting for the broker; the ids now queued."""
    waiting = model_cls.objects.filter(
        status=LLMRun.Status.PENDING, waiting_for_broker=True
    ).values_list("pk", flat=True)
    return [run_id for run_id in list(waiting) if run_dispatch(model_cls=model_cls, run_id=run_id)]


def _dispatch_mark(*, model_cls: type[LLMRun], run_id: int, waiting: bool) -> None:
    with transaction.atomic():
        model_cls.objects.filter(pk=run_id).exclude(waiting_for_broker=waiting).update(
            waiting_for_broker=waiting
        )
