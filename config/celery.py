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

# `celery -A config` imports this before anything names Django's settings; Celery's Django
# fixup needs the settings module named.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("heartbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.set_default()
