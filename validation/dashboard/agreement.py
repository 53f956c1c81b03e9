"""Peer agreement of many experts at once, from the rows recorded as each unit completed.

When the last of a unit's raters submits, ``assignment_submit`` records each rating
submission's pairwise agreement with the others (``annotation.PeerAgreement``); a unit is
completed then and only then, so every figure here reads "completed" from those rows.

- ``peer_agreement_by``: per (pool, expert) totals, the rows' sums — what the overview's
  alerts and ``annotation.selectors_quality`` need; no label is read.
- ``peer_agreement_table``: the study page's split by week and ability, which the rows do not
  hold. It counts the completed units' labels in SQL with window functions over each unit's
  criterion: a label of criterion *i* is compared with the other ``n_i − 1`` raters' labels of
  *i* and agrees with ``k_i − 1`` of them when it is a hit (``k_i`` hits among ``n_i``),
  ``n_i − k_i − 1`` when it is a miss. Cached per pool.

The totals come back as ``annotation.quality.Agreement`` so the same rules
(``running_quality``, ``below_bar``) apply; ``tests/validation/test_dashboard_db.py`` holds the
label count equal to the rows' sums.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Max, Sum

from annotation.models import Label, PeerAgreement, Submission
from annotation.quality import Agreement, combine
from annotation.selectors import rating_submissions
from benchmark.models import RubricItem

# Weeks start on Monday: epoch day 0 (1970-01-01) was a Thursday, three days after one.
_EPOCH_SHIFT_SECONDS = 3 * 86400
_WEEK_SECONDS = 7 * 86400
EPOCH = date(1970, 1, 1)


def _week_sql() -> str:
    if connection.vendor == "postgresql":
        seconds = "EXTRACT(EPOCH FROM s.submitted_at)"
        return f"FLOOR(({seconds} + {_EPOCH_SHIFT_SECONDS}) / {_WEEK_SECONDS})"
    seconds = "((julianday(s.submitted_at) - 2440587.5) * 86400)"
    return f"CAST(({seconds} + {_EPOCH_SHIFT_SECONDS}) / {_WEEK_SECONDS} AS INTEGER)"


def week_of_bucket(bucket: int) -> date:
    """The Monday that starts week ``bucket`` of ``_week_sql``."""
    return EPOCH + timedelta(days=int(bucket) * 7 - 3)


@dataclass(frozen=True)
class AgreementTable:
    """Counts per (pool id, expert id, week, ability); ability None cells hold unit counts."""

    cells: dict[tuple[int, int, date, str | None], Agreement]

    def roll_up(self, *, week: bool = False, ability: bool = False) -> dict[tuple, Agreement]:
        """Sum the cells over the parts not asked for: keys (pool, expert[, week][, ability]).

        Units add up over weeks (an expert rates a unit once) but not over abilities (one unit
        holds several): the table's ability cells carry no unit count, only comparisons.
        """
        found: dict[tuple, list[Agreement]] = defaultdict(list)
        for (pool_id, expert_id, w, a), cell in self.cells.items():
            key = (pool_id, expert_id) + ((w,) if week else ()) + ((a,) if ability else ())
            found[key].append(cell)
        return {key: combine(parts) for key, parts in found.items()}


# Cached tables are keyed by the pools' submissions, so they never go stale; the timeout
# only bounds memory.
CACHE_SECONDS = 3600


def _submissions_state(pool_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Pool id → (newest rating submission id, how many): submissions are append-only and
    their labels change only while their unit is incomplete (a revision), which no agreement
    counts, so the pair changes whenever (and only when) a pool's agreement can."""
    rows = (
        rating_submissions()
        .filter(unit__pool_id__in=pool_ids)
        .values_list("unit__pool_id")
        .annotate(last=Max("id"), n=Count("id"))
        .order_by()
    )
    return {pool_id: (last, n) for pool_id, last, n in rows}


def peer_agreement_table(*, pool_ids: Iterable[int]) -> AgreementTable:
    """Pairwise agreement on the pools' completed units, split by week and ability.

    Each pool's part is kept in the cache under that pool's submission state (see
    ``_submissions_state``): a submit makes only its own pool's part be counted again, and a
    page shown again before anyone submits costs one small grouped count.
    """
    pool_ids = sorted({int(pk) for pk in pool_ids})
    if not pool_ids:
        return AgreementTable(cells={})
    states = _submissions_state(pool_ids)
    keys = {
        pool_id: f"dashboard:agreement:{pool_id}:{states[pool_id][0]}:{states[pool_id][1]}"
        for pool_id in pool_ids
        if pool_id in states  # a pool without ratings has no agreement to count
    }
    cached = cache.get_many(list(keys.values()))
    cells: dict[tuple[int, int, date, str | None], Agreement] = {}
    stale = []
    for pool_id, key in keys.items():
        if key in cached:
            cells.update(cached[key])
        else:
            stale.append(pool_id)
    if stale:
        fresh = _table_compute(pool_ids=stale).cells
        parts: dict[int, dict] = {pool_id: {} for pool_id in stale}
        for cell_key, cell in fresh.items():
            parts[cell_key[0]][cell_key] = cell
        cache.set_many({keys[pool_id]: part for pool_id, part in parts.items()}, CACHE_SECONDS)
        cells.update(fresh)
    return AgreementTable(cells=cells)


def _table_compute(*, pool_ids: list[int]) -> AgreementTable:
    """Two grouped queries over the submissions with a peer-agreement row (those of completed
    units): the comparisons per week and ability, counted from the labels, and the units per
    week. The unit counts are kept on ability None cells, so roll-ups over abilities count each
    unit once.
    """
    row, label, sub = PeerAgreement._meta.db_table, Label._meta.db_table, Submission._meta.db_table
    item = RubricItem._meta.db_table
    week_sql = _week_sql()
    marks = ", ".join(["%s"] * len(pool_ids))
    comparisons = f"""
        WITH labelled AS (
            SELECT pa.pool_id, pa.expert_id, l.hit, {week_sql} AS wk, ri.ability,
                   COUNT(*) OVER w AS n, SUM(CASE WHEN l.hit THEN 1 ELSE 0 END) OVER w AS k
            FROM {row} pa
            JOIN {sub} s ON s.id = pa.submission_id
            JOIN {label} l ON l.submission_id = s.id
            JOIN {item} ri ON ri.id = l.rubric_item_id
            WHERE pa.pool_id IN ({marks})
            WINDOW w AS (PARTITION BY s.unit_id, l.rubric_item_id)
        )
        SELECT pool_id, expert_id, wk, ability, SUM(n - 1),
               SUM(CASE WHEN hit THEN k ELSE n - k END - 1)
        FROM labelled
        GROUP BY pool_id, expert_id, wk, ability
    """
    units_sql = f"""
        SELECT pa.pool_id, pa.expert_id, {week_sql} AS wk, COUNT(*)
        FROM {row} pa JOIN {sub} s ON s.id = pa.submission_id
        WHERE pa.pool_id IN ({marks})
        GROUP BY pa.pool_id, pa.expert_id, wk
    """
    with connection.cursor() as cursor:
        cursor.execute(comparisons, pool_ids)
        compared_rows = cursor.fetchall()
        cursor.execute(units_sql, pool_ids)
        unit_rows = cursor.fetchall()
    cells: dict[tuple[int, int, date, str | None], Agreement] = {}
    for pool_id, expert_id, wk, ability, compared, agreed in compared_rows:
        cells[(pool_id, expert_id, week_of_bucket(wk), ability)] = Agreement(
            agreed=int(agreed), compared=int(compared)
        )
    for pool_id, expert_id, wk, units in unit_rows:
        key = (pool_id, expert_id, week_of_bucket(wk), None)
        cell = cells.get(key, Agreement())
        cells[key] = Agreement(agreed=cell.agreed, compared=cell.compared, units=int(units))
    return AgreementTable(cells=cells)


def peer_agreement_by(*, pool_ids: Iterable[int]) -> dict[tuple[int, int], Agreement]:
    """(pool id, expert id) → pairwise agreement on the pools' completed units.

    The rows' sums (one row per rating submission of a completed unit): no label is read, so
    this needs no cache.
    """
    rows = (
        PeerAgreement.objects.filter(pool_id__in=list(pool_ids))
        .values_list("pool_id", "expert_id")
        .annotate(agreed=Sum("agreed"), compared=Sum("compared"), units=Count("pk"))
        .order_by()
    )
    return {
        (pool_id, expert_id): Agreement(agreed=agreed, compared=compared, units=units)
        for pool_id, expert_id, agreed, compared, units in rows
    }
