"""Figures computed ahead of their first reader.

A closed study's report and badges (``validation.services.stored``) and a dataset's leaderboard
(``benchmark.services.stored_board``) are kept as data, but after a change that makes them
stale (a study closed, a senior's decision after the close, a judge run ended, a deploy that
changed the code) whoever reads them first computed them: 1.8–3.4 s for a report, 1.2–2.5 s
for a board at a million labels.
With workers (a broker configured), the change queues a task on the ``reports`` queue that
computes and stores them, so the first reader reads a row.

In process (no broker) nothing is queued: the request that closed the study or the command
that judged would otherwise wait for figures nobody may read; their first reader computes
them, as before. A broker that cannot be reached is logged, and the same holds.
"""

import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from config.lazy_import import Lazy
from config.publish import task_publish

if TYPE_CHECKING:  # Celery loads with the first task queued (config.lazy_import)
    from celery import Task

logger = logging.getLogger(__name__)
# Named here, not in ``benchmark.services.stored_board``: the board's module loads numpy, and
# the web process and every command that ends a run import this one.
LEADERBOARD_WARM = Lazy("benchmark.tasks.leaderboard_warm_task")


def warm_later(task: "Task", *, countdown: float = 0, **kwargs: Any) -> None:
    """Queue ``task(**kwargs)`` for a worker once the caller's transaction commits, to run in
    ``countdown`` seconds (nothing in process). ``task`` is named, not imported
    (``config.lazy_import.Lazy``): services never import tasks."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    transaction.on_commit(lambda: _publish(task, kwargs, countdown), robust=True)


def leaderboard_warm_later(*, dataset_id: int) -> None:
    """Have a worker compute and store the board the dataset's leaderboard page shows first
    (``benchmark.services.stored_board.leaderboard_warm``) once the caller commits: when a
    judge run ends, and after a deploy."""
    warm_later(LEADERBOARD_WARM, dataset_id=dataset_id)


def _publish(task: "Task", kwargs: dict[str, Any], countdown: float) -> None:
    exc = task_publish(task, kwargs=kwargs, countdown=countdown)
    if exc is not None:
        what = f"{task.name} {kwargs}"
        logger.warning("broker unreachable (%s): %s left to the first reader", exc, what)
