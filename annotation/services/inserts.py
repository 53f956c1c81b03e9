"""Rows written in one statement without building a model instance for each.

``bulk_create`` builds a model instance per row and prepares every field of each through the
ORM's whole save path; for the dozen labels of a submit that cost more CPU than the database
takes to store them (docs/benchmarks.md). ``rows_insert`` sends the statement Django's bulk
insert sends: its text is made once per shape (the model's columns, whether conflicts are
ignored, and on SQLite the number of rows) with the database's own operations, and each value
is prepared by its field as the ORM prepares it. Every column but an automatic primary key is
named: a default is never filled in here, so nothing is silently left to the database.

``row_update`` sends what ``filter(**where).update(**fields)`` sends for plain values (no
expressions, no lookups), its text made once per shape: the autosave's and the submit's
conditional UPDATE, whose queryset and compilation cost several times the statement.
"""

from collections.abc import Iterable, Mapping, Sequence

from django.db import connection, models
from django.db.models.constants import OnConflict

_TEXTS: dict[tuple, str] = {}
_FIELDS: dict[tuple, tuple[models.Field, ...]] = {}


def _fields(model: type[models.Model], columns: tuple[str, ...]) -> tuple[models.Field, ...]:
    key = (model, columns)
    if key not in _FIELDS:
        by_column = {
            field.attname: field
            for field in model._meta.concrete_fields
            if not isinstance(field, models.AutoField)
        }
        if sorted(columns) != sorted(by_column):
            raise ValueError(
                f"{model.__name__}: name every column once, "
                f"{sorted(by_column)}, not {sorted(columns)}"
            )
        _FIELDS[key] = tuple(by_column[column] for column in columns)
    return _FIELDS[key]


def _text(fields: tuple[models.Field, ...], rows: int | None, *, ignore_conflicts: bool) -> str:
    """The statement for ``rows`` ``VALUES`` rows, or with ``rows=None`` for every column as one
    array (``UNNEST``)."""
    key = (connection.vendor, fields, rows, ignore_conflicts)
    if key not in _TEXTS:
        ops, quote = connection.ops, connection.ops.quote_name
        on_conflict = OnConflict.IGNORE if ignore_conflicts else None
        if rows is None:
            arrays = ", ".join(f"(%s)::{field.db_type(connection)}[]" for field in fields)
            values = f"SELECT * FROM UNNEST({arrays})"
        else:
            values = ops.bulk_insert_sql(fields, [["%s"] * len(fields)] * rows)
        _TEXTS[key] = " ".join(
            part
            for part in (
                ops.insert_statement(on_conflict=on_conflict),
                quote(fields[0].model._meta.db_table),
                "(" + ", ".join(quote(field.column) for field in fields) + ")",
                values,
                ops.on_conflict_suffix_sql(fields, on_conflict, None, None),
            )
            if part
        )
    return _TEXTS[key]


def rows_insert(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    ignore_conflicts: bool = False,
) -> int:
    """Insert ``rows`` (values in the order of ``columns``, attribute names such as
    ``submission_id``) into ``model``'s table in one statement (on SQLite, in as few as its
    limit on parameters allows); returns how many rows were sent. With ``ignore_conflicts`` a
    row that breaks a unique constraint is skipped, as ``bulk_create(ignore_conflicts=True)``."""
    fields = _fields(model, tuple(columns))
    values = [
        [field.get_db_prep_save(v, connection) for field, v in zip(fields, row, strict=True)]
        for row in rows
    ]
    if not values:
        return 0
    with connection.cursor() as cursor:
        # PostgreSQL takes each column as one array (``UNNEST``, as Django's own bulk insert
        # does there): the text is the same whatever the number of rows, so one plan serves
        # every call. Elsewhere the rows are ``VALUES`` tuples.
        if connection.vendor == "postgresql":
            cursor.execute(
                _text(fields, None, ignore_conflicts=ignore_conflicts),
                [list(column) for column in zip(*values, strict=True)],
            )
            return len(values)
        batch = max(1, connection.ops.bulk_batch_size(fields, values))
        for start in range(0, len(values), batch):
            chunk = values[start : start + batch]
            cursor.execute(
                _text(fields, len(chunk), ignore_conflicts=ignore_conflicts),
                [value for row in chunk for value in row],
            )
    return len(values)


_UPDATES: dict[tuple, tuple[str, tuple[models.Field, ...], tuple[models.Field, ...]]] = {}


def _update_text(model: type[models.Model], names: tuple[str, ...], where: tuple[str, ...]):
    key = (connection.vendor, model, names, where)
    if key not in _UPDATES:
        meta, quote = model._meta, connection.ops.quote_name
        sets, conditions = [meta.get_field(n) for n in names], [meta.get_field(n) for n in where]
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in sets)
        matches = " AND ".join(f"{quote(field.column)} = %s" for field in conditions)
        text = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {matches}"
        _UPDATES[key] = text, tuple(sets), tuple(conditions)
    return _UPDATES[key]


def row_update(
    model: type[models.Model], *, where: Mapping[str, object], fields: Mapping[str, object]
) -> int:
    """``model.objects.filter(**where).update(**fields)`` for plain values: each condition an
    equality on a column (none of them NULL), each value prepared by its field as the ORM
    prepares it; returns how many rows were changed."""
    text, sets, conditions = _update_text(model, tuple(fields), tuple(where))
    params = [f.get_db_prep_save(v, connection) for f, v in zip(sets, fields.values(), strict=True)]
    params += [
        f.get_db_prep_value(v, connection) for f, v in zip(conditions, where.values(), strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(text, params)
        return cursor.rowcount
