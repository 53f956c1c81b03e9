"""The project's one Celery app.

It is made the *default* app, not only the current one: Celery keeps "current" per thread,
and a thread that never saw this module (a request thread of a threaded WSGI server, the
development server's reloader child) falls back to a default app built on the spot, which
points at an AMQP broker on localhost. ``shared_task`` proxies resolve through that fallback,
so without this a ``task.delay()`` from such a thread tried to reach a broker that does not
exist, even with no broker configured (where tasks must run in process).

Every module that defines tasks (``benchmark.tasks``, ``validation.tasks``) imports this one,
so no task can be reached before the app is the default; ``heartbench worker`` and
``celery -A config`` load it themselves.
"""

import logging
import os
import threading
import time

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_ready
from django.db import close_old_connections

# `celery -A config` imports this before anything names Django's settings; Celery's Django
# fixup needs the settings module named.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger(__name__)

app = Celery("heartbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.set_default()


@task_prerun.connect(weak=False)
@task_postrun.connect(weak=False)
def _connections_as_a_request_keeps_them(task=None, **kwargs) -> None:
    """A worker's task meets the database as a request does: its connection is kept
    (``CONN_MAX_AGE``, for good) and checked before reuse (``CONN_HEALTH_CHECKS``), instead of
    being opened and closed for every task as Celery's Django fixup does
    (``CELERY_DB_REUSE_MAX`` makes that a rare recycle). Every unit's last rating queues a
    task, so a new connection each, with none of its statements prepared, was PostgreSQL's
    second-largest cost in a study's last third (docs/benchmarks.md). Tasks run in process are
    the caller's business: their connection may be inside the caller's transaction."""
    if task is not None and not task.request.is_eager:
        close_old_connections()


# --- a live worker's tasks stay its own; a dead worker's come back within a minute --------
#
# On Redis a task taken but not yet acknowledged (``acks_late``) goes back to the queue once it
# has been out for the visibility timeout, whether its worker died or is merely slow. A short
# timeout hands a SIGKILLed worker's chunk to another worker soon, but would also hand out a
# long chunk still running. So the timeout is short (settings) and every worker renews the
# delivery time of the tasks it holds (running, or waiting for their ETA) a few times per
# timeout: only the tasks of a worker that stopped renewing them come back.


@worker_ready.connect(weak=False)
def _renew_held_tasks_while_alive(sender=None, **kwargs) -> None:
    conf = app.conf
    timeout = (conf.broker_transport_options or {}).get("visibility_timeout")
    if not timeout or not str(conf.broker_url or "").startswith("redis"):
        return
    every = max(0.5, timeout / 4)
    threading.Thread(target=_renew_forever, args=(every,), daemon=True, name="renew").start()


def _renew_forever(every: float) -> None:
    from celery.worker import state

    while True:
        time.sleep(every)
        tags = {r.message.delivery_tag for r in list(state.reserved_requests) if r.message}
        if tags:
            held_tasks_renew(tags=tags)


def held_tasks_renew(*, tags: set[str]) -> None:
    """Mark the deliveries ``tags`` as handed out now; a tag already acknowledged (gone from
    the index) is not added back. A broker that does not answer is logged, not raised."""
    try:
        with app.connection_for_write() as connection:
            channel = connection.default_channel
            now = time.time()
            channel.client.zadd(channel.unacked_index_key, dict.fromkeys(tags, now), xx=True)
    except Exception as exc:  # the broker is down: its restore waits for it too
        logger.warning("could not renew the tasks this worker holds: %s", exc)
