"""Hot statements compiled by the ORM once per shape, then sent with each call's values.

Building and compiling a queryset with correlated subqueries costs more CPU than the
database takes to answer it. ``rows`` keeps the SQL text the ORM compiled for a shape (the
key names everything that changes the text: the database, the filters chosen, the limit) and
where in its parameters each of the call's values went, found by compiling the shape once
with stand-in values that no real row has. Later calls send the same text with their own
values, so the database gets exactly the statement the ORM would have sent (PostgreSQL plans
it as before). Values are ints (ids, bounds) or aware datetimes, prepared as the ORM prepares
a model field's value; anything else belongs in the key.
"""

from collections.abc import Callable
from datetime import UTC, datetime

from django.db import connection
from django.db.models import QuerySet

_STATEMENTS: dict[tuple, tuple[str, tuple, tuple[str | None, ...]]] = {}


def _stand_in(index: int, value: object) -> object:
    if isinstance(value, datetime):
        return datetime(1900 + index, 1, 1, tzinfo=UTC)
    if isinstance(value, int) and not isinstance(value, bool):
        return -(10**12) - index
    raise TypeError(f"a compiled statement's value must be an int or a datetime, not {value!r}")


def _prepared(value: object) -> object:
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


def _compile(build: Callable[..., QuerySet], values: dict[str, object]):
    stand_ins = {name: _stand_in(i, value) for i, (name, value) in enumerate(values.items())}
    sql, params = build(**stand_ins).query.get_compiler(connection=connection).as_sql()
    names = {_prepared(value): name for name, value in stand_ins.items()}
    slots = tuple(
        names.get(param) if isinstance(param, int | str | datetime) else None for param in params
    )
    missing = set(values) - set(slots)
    if missing:
        raise ValueError(f"the compiled statement does not take {sorted(missing)} as parameters")
    return sql, tuple(params), slots


def rows(key: tuple, build: Callable[..., QuerySet], /, **values: object) -> list[tuple]:
    """The rows of ``build(**values)``'s statement; ``build`` runs once per ``key`` (and
    database), with stand-ins for ``values``."""
    shape = (connection.alias, *key)
    statement = _STATEMENTS.get(shape)
    if statement is None:
        statement = _STATEMENTS[shape] = _compile(build, values)
    sql, params, slots = statement
    sent = [
        param if slot is None else _prepared(values[slot])
        for param, slot in zip(params, slots, strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, sent)
        return cursor.fetchall()
