"""Figures kept as data: a row per key holding a computed value as JSON text (a model with
``key`` and ``value`` fields: ``benchmark.StoredBoard``, ``validation.StoredFigures``).

The text is written as ``json.dumps`` gives it (PostgreSQL's jsonb would reorder keys and
refuse NaN) and read back at once, so the request that computed a value sees the very values
later requests read.
"""

import json
from typing import Any

from django.db import IntegrityError, models, transaction
from django.utils.translation import gettext_lazy as _

# What ``stored_value`` returns when no row has the key (a stored value may be null).
ABSENT = object()


class StoredValue(models.Model):
    """A row of figures kept as data: ``key`` (a hash of what the value was computed from),
    ``kind`` (what it is) and the value as JSON text."""

    key = models.CharField(_("key"), max_length=64, unique=True)
    kind = models.CharField(_("kind"), max_length=300)
    # JSON as text: PostgreSQL's jsonb would reorder the keys and refuse NaN.
    value = models.TextField(_("value"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        abstract = True


class StoredValueError(ValueError):
    """A stored value cannot be read back (its row holds no JSON)."""


def stored_value(model: type[models.Model], *, key: str, what: str) -> Any:
    """The value stored under ``key``, or ``ABSENT`` when there is no row. Raises
    ``StoredValueError`` naming ``what``, the key and the parser's reason on a row that is not
    JSON."""
    kept = model.objects.filter(key=key).values_list("value", flat=True).first()
    if kept is None:
        return ABSENT
    try:
        return json.loads(kept)
    except json.JSONDecodeError as exc:
        raise StoredValueError(f"{what} {key[:12]} is not JSON: {exc}") from exc


def stored_value_write(
    model: type[models.Model],
    *,
    key: str,
    value: Any,
    replacing: models.QuerySet | None = None,
    **fields: Any,
) -> Any:
    """Store ``value`` under ``key`` (with ``fields``), deleting ``replacing`` in the same
    transaction, and return it as read back from its text. A value that is not JSON raises
    ``TypeError`` before anything is written; a row another request stored first is kept."""
    text = json.dumps(value)
    try:
        with transaction.atomic():
            if replacing is not None:
                replacing.delete()
            model.objects.create(key=key, value=text, **fields)
    except IntegrityError:  # another request stored the same value first
        pass
    return json.loads(text)
