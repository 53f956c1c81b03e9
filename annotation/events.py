"""What annotation tells the apps above it about a unit's life: an explicit registry.

Annotation must not import validation, yet validation must act when a unit gets its last
rating. Validation subscribes in its ``AppConfig.ready()``; annotation's services announce.
Reading ``validation/apps.py`` shows who listens, and a test can swap the lists.

- ``unit_rated``: in the transaction of a unit's last rating, before it commits; a handler
  that raises rolls the rating back (the study settles the unit there: gold, or the senior
  queue for a split).
- ``unit_decided``: in the transaction of a senior's decision, before it commits (the study
  makes the decision gold there). In the transaction, not in a task after the commit: a
  decision made while the broker is down becomes gold all the same, as a last rating does.
"""

from collections.abc import Callable

RATED: list[Callable[..., object]] = []
DECIDED: list[Callable[..., object]] = []


def subscribe(
    *, rated: Callable[..., object] | None = None, decided: Callable[..., object] | None = None
) -> None:
    """Add a handler: ``rated(unit_id=..., ratings=...)``, ``decided(unit_id=...)``;
    subscribing the same one twice is a no-op, so a repeated ``ready()`` is harmless."""
    if rated is not None and rated not in RATED:
        RATED.append(rated)
    if decided is not None and decided not in DECIDED:
        DECIDED.append(decided)


def unit_rated(unit_id: int, *, ratings: list) -> None:
    """Announce, inside the caller's transaction, that a unit has all its ratings; ``ratings``
    are its rating rows (``annotation.selectors.unit_rating_rows``), read once for every
    handler."""
    for handler in RATED:
        handler(unit_id=unit_id, ratings=ratings)


def unit_decided(unit_id: int) -> None:
    """Announce, inside the caller's transaction, that a senior decided the unit; a handler
    that raises rolls the decision back."""
    for handler in DECIDED:
        handler(unit_id=unit_id)
