"""Hot statements compiled by the ORM once per shape, then sent with each call's values.

Building and compiling a queryset with correlated subqueries costs more CPU than the
database takes to answer it. ``rows`` keeps the SQL text the ORM compiled for a shape (the
key names everything that changes the text: the database, the filters chosen, the limit) and
where in its parameters each of the call's values went, found by compiling the shape once
with stand-in values that no real row has. Later calls send the same text with their own
values, so the database gets the statement the ORM would have sent, except that the shape's
constant words (a status, a kind) are written into it as literals (``_words_written``: a plan
PostgreSQL keeps for a prepared statement can then use the partial indexes they name), and its
rows come back converted as the ORM converts them (``rows``, or ``rows_one_plan`` for a shape
whose plan is the same whatever its values), or as
model instances with their related rows and annotations (``objects``). Values are ints (ids,
bounds), strings (names), UUIDs or aware datetimes, prepared as the ORM prepares a model
field's value; anything else belongs in the key.
"""

import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from django.db import connection
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql.compiler import SQLCompiler

_STATEMENTS: dict[tuple, tuple[str, tuple, tuple[str | None, ...], SQLCompiler, dict]] = {}


def _stand_in(index: int, value: object) -> object:
    if isinstance(value, datetime):
        return datetime(1900 + index, 1, 1, tzinfo=UTC)
    if isinstance(value, int) and not isinstance(value, bool):
        return -(10**12) - index
    if isinstance(value, str):
        return f"\x00compiled stand-in {index}"
    if isinstance(value, uuid.UUID):
        return uuid.UUID(int=(1 << 127) | index)
    raise TypeError(
        f"a compiled statement's value must be an int, a string, a UUID or a datetime, "
        f"not {value!r}"
    )


def _prepared(value: object) -> object:
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    if isinstance(value, uuid.UUID) and not connection.features.has_native_uuid_field:
        return value.hex  # as UUIDField stores it there
    return value


# A constant the shape's text may carry as a literal: a status, a kind (choices' values).
_WORD = re.compile(r"[a-z_]+")


def _words_written(
    sql: str, params: tuple, slots: tuple, *, hide_values: bool = False
) -> tuple[str, tuple, tuple]:
    """The shape's constant words (``_WORD``: never a call's value) written into its text as
    literals, the rest left as parameters. A plan PostgreSQL keeps for a prepared statement
    is made without the parameters' values, so only a literal ``status = 'leased'`` lets it
    use an index whose condition names that status.

    With ``hide_values``, each of the call's values is sent as a scalar subquery of its
    parameter, ``(SELECT %s)``: a value the planner cannot see, in a plan made for this call
    as in the plan it keeps (``rows_one_plan``)."""
    values = iter(zip(params, slots, strict=True))
    pieces, kept = [], []
    for piece in re.split(r"(%%|%s)", sql):  # Django's placeholder, and its escaped percent
        if piece == "%s":
            param, slot = next(values)
            if slot is None and isinstance(param, str) and _WORD.fullmatch(param):
                piece = f"'{param}'"
            else:
                kept.append((param, slot))
                if hide_values and slot is not None:
                    piece = "(SELECT %s)"
        pieces.append(piece)
    return "".join(pieces), tuple(p for p, _ in kept), tuple(s for _, s in kept)


def _compile(build: Callable[..., QuerySet], values: dict[str, object], *, hide_values: bool):
    stand_ins = {name: _stand_in(i, value) for i, (name, value) in enumerate(values.items())}
    compiler = build(**stand_ins).query.get_compiler(connection=connection)
    sql, params = compiler.as_sql()
    names = {_prepared(value): name for name, value in stand_ins.items()}
    slots = tuple(
        names.get(param) if isinstance(param, int | str | datetime | uuid.UUID) else None
        for param in params
    )
    missing = set(values) - set(slots)
    if missing:
        raise ValueError(f"the compiled statement does not take {sorted(missing)} as parameters")
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    text = _words_written(sql, tuple(params), slots, hide_values=hide_values)
    return (*text, compiler, converters)


def _fetch(
    key: tuple,
    build: Callable[..., QuerySet],
    values: dict[str, object],
    *,
    one_plan: bool = False,
):
    # Hidden values only where a plan is kept between calls: PostgreSQL's prepared statements
    # (``config.env``, unless DATABASE_PREPARED_STATEMENTS turns them off).
    hide_values = (
        one_plan
        and connection.vendor == "postgresql"
        and connection.settings_dict["OPTIONS"].get("prepare_threshold") is not None
    )
    shape = (connection.alias, hide_values, *key)
    statement = _STATEMENTS.get(shape)
    if statement is None:
        statement = _STATEMENTS[shape] = _compile(build, values, hide_values=hide_values)
    sql, params, slots, compiler, converters = statement
    sent = [
        param if slot is None else _prepared(values[slot])
        for param, slot in zip(params, slots, strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, sent)
        fetched = cursor.fetchall()
    if converters:
        fetched = list(compiler.apply_converters(fetched, converters))
    return compiler, fetched


def rows(key: tuple, build: Callable[..., QuerySet], /, **values: object) -> list[tuple]:
    """The rows of ``build(**values)``'s statement (a ``values_list`` or ``values`` one);
    ``build`` runs once per ``key`` (and database), with stand-ins for ``values``."""
    return [tuple(row) for row in _fetch(key, build, values)[1]]


def rows_one_plan(key: tuple, build: Callable[..., QuerySet], /, **values: object) -> list[tuple]:
    """``rows``, for a shape whose best plan is the same whatever the call's values (the
    claim's window and the study state's "any left": walks of the pool's waiting units in id
    order). PostgreSQL plans a prepared statement for each call's values while that plan
    looks cheaper than the one it would keep, and for the window it did at almost every call
    (a random starting point makes a few plans look cheaper): planning then cost it more than
    running the statement. Its values hidden from the planner (``_words_written``), every
    plan looks alike and the kept one is used. Not for a shape whose plan should follow its
    values (progress's counts: a kept plan of those walked an expert's every past rating on a
    large, mostly rated pool)."""
    return [tuple(row) for row in _fetch(key, build, values, one_plan=True)[1]]


def objects(key: tuple, build: Callable[..., QuerySet], /, **values: object) -> list[Model]:
    """The model instances of ``build(**values)``, as its queryset would give them (the rows
    of ``select_related`` attached, annotations set); ``build`` as for ``rows``."""
    compiler, fetched = _fetch(key, build, values)
    klass_info, select = compiler.klass_info, compiler.select
    first, last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    names = [column[0].target.attname for column in select[first:last]]
    populators = get_related_populators(klass_info, select, connection.alias)
    found = []
    for row in fetched:
        instance = klass_info["model"].from_db(connection.alias, names, row[first:last])
        for populator in populators:
            populator.populate(row, instance)
        for name, position in compiler.annotation_col_map.items():
            setattr(instance, name, row[position])
        found.append(instance)
    return found


def first(key: tuple, build: Callable[..., QuerySet], /, **values: object) -> Model | None:
    """The first of ``objects``, or None (``build`` slices its queryset to one row)."""
    found = objects(key, build, **values)
    return found[0] if found else None
