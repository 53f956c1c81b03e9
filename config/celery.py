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

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

# `celery -A config` imports this before anything names Django's settings; Celery's Django
# fixup needs the settings module named.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

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
