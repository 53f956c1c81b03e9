"""What annotation tells the apps above it about a unit's life: an explicit registry.

Annotation must not import validation, yet validation must act when a unit gets its last
rating. Validation subscribes in its ``AppConfig.ready()``; annotation's services announce.
Reading ``validation/apps.py`` shows who listens, and a test can swap the lists.

- ``unit_rated``: in the transaction of a unit's last rating, before it commits; a handler
  that raises rolls the rating back (the study settles the unit there: gold, or the senior
  queue for a split).
- ``unit_complete``: after the commit of a senior's decision; each subscriber is a Celery
  task, queued with the unit's id (the decision becomes gold there). A last rating announces
  only ``unit_rated``: the unit is settled in its transaction, and a task after the commit
  would find nothing to do.
"""

from collections.abc import Callable

from django.db import transaction

RATED: list[Callable[..., object]] = []
COMPLETE: list = []  # Celery tasks: ``task.delay(unit_id=...)``


def subscribe(*, rated: Callable[..., object] | None = None, complete=None) -> None:
    """Add a handler (``rated(unit_id=..., ratings=...)``) or a task
    (``complete.delay(unit_id=...)``); subscribing the same one twice is a no-op, so a repeated
    ``ready()`` is harmless."""
    if rated is not None and rated not in RATED:
        RATED.append(rated)
    if complete is not None and complete not in COMPLETE:
        COMPLETE.append(complete)


def unit_rated(unit_id: int, *, ratings: list) -> None:
    """Announce, inside the caller's transaction, that a unit has all its ratings; ``ratings``
    are its rating rows (``annotation.selectors.unit_rating_rows``), read once for every
    handler."""
    for handler in RATED:
        handler(unit_id=unit_id, ratings=ratings)


def unit_complete(unit_id: int) -> None:
    """Queue every subscribed task for the unit once the caller's transaction commits.

    Robust: the submission is committed by then, so a task that fails in process (eager) or
    cannot be published is logged, not answered to the expert as a 500; closing the study
    settles any unit still unsettled.
    """
    for task in COMPLETE:
        transaction.on_commit(lambda task=task: task.delay(unit_id=unit_id), robust=True)
