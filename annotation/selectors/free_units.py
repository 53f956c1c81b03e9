"""The units an expert may still be handed, in hand-written SQL: the claim's window and the
progress line's count.

Why not the ORM: these are the hottest reads of the expert API (every claim, every progress
line), and Django compiled their correlated subqueries afresh on every call, which cost more
CPU than the database spent answering them (``docs/benchmarks.md``, issue 16). The text below
is plain SQL that SQLite and PostgreSQL read alike; only the values travel as parameters.

A unit is free for the expert at ``now`` when it is in the pool, its ratings are not complete
(``Unit.ratings_complete``, the partial index ``unit_pool_waiting``), fewer than the pool's
raters hold a live rating slot on it (submitted, or leased and not run out: a lease past its
time reads as free although no sweep may have marked it expired yet), and the expert holds or
gave none of those. Every condition is a subquery on the unit's own assignments, so the
database walks the pool in unit order and stops at the window's end.
"""

from collections.abc import Sequence
from datetime import datetime

from django.db import connection

from annotation.assignment import HardCases
from annotation.models import Assignment, Expert, Pool, Unit
from benchmark.models import Case, Response, RubricItem

UNIT = Unit._meta.db_table
ASSIGNMENT = Assignment._meta.db_table
RESPONSE = Response._meta.db_table
CASE = Case._meta.db_table
RUBRIC = RubricItem._meta.db_table

# The live rating slots on unit ``u``, for the parameters of ``_live_params``.
_LIVE = (
    f"FROM {ASSIGNMENT} a WHERE a.unit_id = u.id AND a.kind = %s"
    " AND (a.status = %s OR (a.status = %s AND a.lease_expires_at > %s))"
)
_TAKEN = f"(SELECT COUNT(*) {_LIVE})"


def _live_params(now: datetime) -> list[object]:
    return [
        Assignment.Kind.RATING.value,
        Assignment.Status.SUBMITTED.value,
        Assignment.Status.LEASED.value,
        connection.ops.adapt_datetimefield_value(now),
    ]


def _free(*, pool: Pool, expert: Expert, now: datetime, hard: str) -> tuple[str, list[object]]:
    """FROM and WHERE of the expert's free units (``u``, with its case ``c``), and their
    parameters; the hard cases left out when the study's policy keeps them from the expert."""
    sql = (
        f" FROM {UNIT} u JOIN {RESPONSE} r ON r.id = u.response_id"
        f" JOIN {CASE} c ON c.id = r.case_id"
        f" WHERE u.pool_id = %s AND u.ratings_complete = %s"
        f" AND NOT EXISTS (SELECT 1 {_LIVE} AND a.expert_id = %s)"
        f" AND {_TAKEN} < %s"
    )
    params = [pool.pk, False, *_live_params(now), expert.pk, *_live_params(now)]
    params.append(pool.raters_per_unit)
    if hard == HardCases.NONE:
        sql += " AND c.difficulty <> %s"
        params.append("hard")
    return sql, params


def _preference_tiers(*, expert: Expert, hard: str) -> list[tuple[str, list[object]]]:
    """Conditions on ``c`` in ``annotation.assignment.rank_candidates``'s order of preference,
    before the count: specialty match first, then hard cases first for proven experts."""
    dimensions: list[tuple[str, list[object]]] = []
    if expert.specialties:
        marks = ", ".join(["%s"] * len(expert.specialties))
        dimensions.append(
            (
                f"(c.primary_scene IN ({marks}) OR EXISTS (SELECT 1 FROM {RUBRIC} ri"
                f" WHERE ri.case_id = c.id AND ri.ability IN ({marks})))",
                [*expert.specialties, *expert.specialties],
            )
        )
    if hard == HardCases.FIRST:
        dimensions.append(("c.difficulty = %s", ["hard"]))
    tiers: list[tuple[str, list[object]]] = [("", [])]
    for sql, params in dimensions:
        tiers = [
            (f"{tier} AND {wanted}", [*tier_params, *params])
            for tier, tier_params in tiers
            for wanted in (sql, f"NOT {sql}")
        ]
    return tiers


def free_units_window(
    *, pool: Pool, expert: Expert, now: datetime, hard: str, start: float, size: int
) -> list[tuple[int, int]]:
    """(unit id, taken slots) of up to ``size`` free units of the best preference tier that
    has any, in unit order from the point ``start`` (0 ≤ start < 1) of the pool's id range on,
    wrapping around: one statement per tier tried, both halves of the wrap in it."""
    free, free_params = _free(pool=pool, expert=expert, now=now, hard=hard)
    # Two index probes for the id range (first and last), never an aggregate over the pool.
    pivot = (
        f"(SELECT lo + CAST((hi - lo + 1) * %s AS INTEGER) FROM (SELECT"
        f" (SELECT id FROM {UNIT} WHERE pool_id = %s ORDER BY id LIMIT 1) AS lo,"
        f" (SELECT id FROM {UNIT} WHERE pool_id = %s ORDER BY id DESC LIMIT 1) AS hi) AS bounds)"
    )
    pivot_params = [start, pool.pk, pool.pk]
    for tier, tier_params in _preference_tiers(expert=expert, hard=hard):
        halves = [
            f"SELECT {half} AS half, id, taken FROM (SELECT u.id AS id, {_TAKEN} AS taken"
            f"{free}{tier} AND u.id {side} {pivot} ORDER BY u.id LIMIT %s) AS h{half}"
            for half, side in ((0, ">="), (1, "<"))
        ]
        params = [*_live_params(now), *free_params, *tier_params, *pivot_params, size]
        rows = _fetch(
            f"SELECT id, taken FROM ({' UNION ALL '.join(halves)}) AS w ORDER BY half, id LIMIT %s",
            [*params, *params, size],
        )
        if rows:
            return rows
    return []


def free_units_count(*, pool: Pool, expert: Expert, now: datetime, hard: str) -> int:
    """How many units the claim could still hand this expert (specialties only order)."""
    free, params = _free(pool=pool, expert=expert, now=now, hard=hard)
    return _fetch(f"SELECT COUNT(*){free}", params)[0][0]


def _fetch(sql: str, params: Sequence[object]) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()]
