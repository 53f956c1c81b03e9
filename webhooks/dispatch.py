"""Handing a delivery to whoever sends it: the Celery workers, or this process's threads.

With a broker the delivery's task is published (a retry with its countdown). Without one,
tasks run in process; a delivery then goes out on a sender thread of this process, so
the request that announced the event (an expert's submit) never waits for a receiver. A retry
waits on a timer there and is lost if the process ends first: the delivery keeps its next try
and its log in the admin, whose "send again" sends it.

Services never import the tasks: ``WebhooksConfig.ready()`` registers the delivery task here.
"""

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connections

from config.publish import task_publish

if TYPE_CHECKING:  # Celery loads with the first delivery queued (config.lazy_import)
    from celery import Task

logger = logging.getLogger(__name__)
TASKS: dict[str, "Task"] = {}


def deliver_task_register(*, task: "Task") -> None:
    """Make ``task`` (taking ``delivery_id`` and ``replay``) the one that sends deliveries."""
    TASKS["deliver"] = task


class InProcess:
    """Sender threads and the timers of their retries, with a count of the work pending."""

    def __init__(self, *, workers: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="webhook")
        self.pending = 0
        self.changed = threading.Condition()

    def submit(self, work: Callable[[], object], *, countdown: float) -> None:
        with self.changed:
            self.pending += 1
        if countdown <= 0:
            self.pool.submit(self._run, work)
            return
        # A daemon timer: a process that is ending does not wait out a back-off.
        timer = threading.Timer(countdown, self.pool.submit, args=(self._run, work))
        timer.daemon = True
        timer.start()

    def wait(self, timeout: float) -> bool:
        """Wait until nothing is pending (sent, or given up); False on timeout."""
        with self.changed:
            return self.changed.wait_for(lambda: self.pending == 0, timeout)

    def _run(self, work: Callable[[], object]) -> None:
        try:
            work()
        except Exception:  # logged here: nobody waits on a sender thread
            logger.exception("webhook delivery failed in process")
        finally:
            connections.close_all()  # this thread's connections only
            with self.changed:
                self.pending -= 1
                self.changed.notify_all()


# One sender: the embedded database has one writer anyway, and events go out in order.
IN_PROCESS = InProcess(workers=1)


def delivery_queue(*, delivery_id: int, countdown: float = 0, replay: bool = False) -> None:
    """Have the delivery sent in ``countdown`` seconds.

    A broker that is down is logged: the delivery keeps its next try, and the admin's "send
    again" sends it.
    """
    task, kwargs = TASKS["deliver"], {"delivery_id": delivery_id, "replay": replay}
    if settings.CELERY_TASK_ALWAYS_EAGER:
        IN_PROCESS.submit(lambda: task.apply(kwargs=kwargs), countdown=countdown)
        return
    exc = task_publish(task, kwargs=kwargs, countdown=countdown)
    if exc is not None:
        logger.warning("broker unreachable (%s): webhook delivery %s waits", exc, delivery_id)
