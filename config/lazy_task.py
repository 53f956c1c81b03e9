"""A Celery task named by its dotted path, imported (and Celery with it) on first use.

The apps' ``ready()`` methods register the tasks that services queue (services never import
tasks). Importing a tasks module imports Celery and kombu, about a quarter of a second that
every command paid at start-up although most never queue anything (`heartbench judge` runs
in its own process); the proxy defers that to the first ``delay()``/``apply_async()``. The
tasks module still imports ``config.celery`` before any task is reached.
"""

from django.utils.functional import SimpleLazyObject
from django.utils.module_loading import import_string


def task_lazy(*, path: str):
    """The task at ``path`` (``"app.tasks.name"``), imported when first used."""
    return SimpleLazyObject(lambda: import_string(path))
