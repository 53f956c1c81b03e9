"""A task or handler named by its dotted path, imported on first use.

The apps' ``ready()`` methods register the tasks that services queue and the handlers of
annotation's events. Importing them there imported Celery and kombu (the tasks modules) and
every service of validation and annotation (the handlers): a third of a second that every
command paid at start-up, though most never queue a task nor rate a unit (`heartbench judge`).
A :class:`Lazy` defers the import to the first call or attribute read. A tasks module still
imports ``config.celery`` before any of its tasks is reached.

Every path named is kept in ``NAMED``: ``tests/test_wiring.py`` imports each one, so a renamed
task or handler fails a test rather than the first unit rated in production, and checks that
each names its own app (a name is an import the layers' contract cannot see).
"""

from dataclasses import dataclass
from typing import Any

from django.utils.module_loading import import_string

NAMED: set[str] = set()


@dataclass(frozen=True)
class Lazy:
    """``path`` (``"app.module.name"``), imported when first called or read from; equal to
    another ``Lazy`` of the same path, so subscribing one twice is still a no-op."""

    path: str

    def __post_init__(self) -> None:
        NAMED.add(self.path)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return import_string(self.path)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # a task's delay(), apply_async(), name, app…
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(import_string(self.path), name)
