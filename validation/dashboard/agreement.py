"""Peer agreement of many experts at once, counted by the database.

``annotation.selectors_quality.expert_peer_agreement`` reads one expert's labels into Python
and counts with ``annotation.quality.peer_agreement``; fifty experts over 200,000 labels that
way is fifty round trips and every label in memory. The count is the same sum, so it is done
in SQL here, with window functions over each unit's criterion: on a completed unit, a label
of criterion *i* is compared with the other ``n_i − 1`` raters' labels of *i* and agrees
with ``k_i − 1`` of them when it is a hit (``k_i`` hits among ``n_i``), ``n_i − k_i − 1``
when it is a miss. Completed means what it means there: all of the pool's raters (and at
least two) submitted. The totals come back as
``annotation.quality.Agreement`` so the same rules (``running_quality``, ``below_bar``) apply;
``tests/validation/test_dashboard_db.py`` checks the counts match.

Only the study page needs that split by week and ability (``peer_agreement_table``, cached
per pool). The per-expert totals of every open study, which the overview's alerts need, are
sums of the rows recorded as each unit completed (``peer_agreement_by``), so the overview
reads no label even with nothing cached.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Max, Sum

from annotation.models import Label, PeerAgreement, Pool, Submission, Unit
from annotation.quality import Agreement, combine
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
    """Counts per (pool id, expert id, week or None, ability or None)."""

    cells: dict[tuple[int, int, date | None, str | None], Agreement]

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
    """Pool id → (newest rating submission id, how many): submissions and their labels are
    append-only, so the pair changes whenever (and only when) a pool's agreement can."""
    rows = (
        Submission.objects.filter(unit__pool_id__in=pool_ids, kind="rating")
        .values_list("unit__pool_id")
        .annotate(last=Max("id"), n=Count("id"))
        .order_by()
    )
    return {pool_id: (last, n) for pool_id, last, n in rows}


def peer_agreement_table(
    *, pool_ids: Iterable[int], by_week: bool = False, by_ability: bool = False
) -> AgreementTable:
    """Pairwise agreement on the pools' completed units, split by week and/or ability.

    Each pool's part is kept in the cache under that pool's submission state (see
    ``_submissions_state``): a submit makes only its own pool's part be counted again, and a
    page shown again before anyone submits costs one small grouped count.
    """
    pool_ids = sorted({int(pk) for pk in pool_ids})
    if not pool_ids:
        return AgreementTable(cells={})
    states = _submissions_state(pool_ids)
    shape = f"{int(by_week)}{int(by_ability)}"
    keys = {
        pool_id: f"dashboard:agreement:{pool_id}:{shape}:{states[pool_id][0]}:{states[pool_id][1]}"
        for pool_id in pool_ids
        if pool_id in states  # a pool without ratings has no agreement to count
    }
    cached = cache.get_many(list(keys.values()))
    cells: dict[tuple[int, int, date | None, str | None], Agreement] = {}
    stale = []
    for pool_id, key in keys.items():
        if key in cached:
            cells.update(cached[key])
        else:
            stale.append(pool_id)
    if stale:
        fresh = _table_compute(pool_ids=stale, by_week=by_week, by_ability=by_ability).cells
        parts: dict[int, dict] = {pool_id: {} for pool_id in stale}
        for cell_key, cell in fresh.items():
            parts[cell_key[0]][cell_key] = cell
        cache.set_many({keys[pool_id]: part for pool_id, part in parts.items()}, CACHE_SECONDS)
        cells.update(fresh)
    return AgreementTable(cells=cells)


def _table_compute(*, pool_ids: list[int], by_week: bool, by_ability: bool) -> AgreementTable:
    """Pairwise agreement on the pools' completed units, split by week and/or ability.

    Two grouped queries: the comparisons (labels against the other raters' labels of the same
    criterion, counted with window functions over each unit's criterion) and the completed
    units per expert and week (from submissions alone). With ``by_ability`` the unit counts
    are kept on ability None cells, so roll-ups over abilities count each unit once.
    """
    label, sub = Label._meta.db_table, Submission._meta.db_table
    unit, pool, item = Unit._meta.db_table, Pool._meta.db_table, RubricItem._meta.db_table
    week_sql = _week_sql() if by_week else "NULL"
    ability_sql = "ri.ability" if by_ability else "NULL"
    item_join = f"JOIN {item} ri ON ri.id = l.rubric_item_id" if by_ability else ""
    marks = ", ".join(["%s"] * len(pool_ids))
    done = f"""
        done AS (
            SELECT u.id AS unit_id
            FROM {unit} u JOIN {pool} p ON p.id = u.pool_id
            JOIN {sub} s ON s.unit_id = u.id AND s.kind = 'rating'
            WHERE u.pool_id IN ({marks})
            GROUP BY u.id, p.raters_per_unit
            HAVING COUNT(*) >= p.raters_per_unit AND COUNT(*) >= 2
        )"""
    # (No constant in GROUP BY: a bare number there means a column position.)
    extra = "".join(
        f", {column}" for column, wanted in (("wk", by_week), ("ability", by_ability)) if wanted
    )
    comparisons = f"""
        WITH {done},
        labelled AS (
            SELECT u.pool_id, s.expert_id, l.hit, {week_sql} AS wk, {ability_sql} AS ability,
                   COUNT(*) OVER w AS n, SUM(CASE WHEN l.hit THEN 1 ELSE 0 END) OVER w AS k
            FROM {label} l
            JOIN {sub} s ON s.id = l.submission_id
            JOIN {unit} u ON u.id = s.unit_id
            {item_join}
            WHERE s.kind = 'rating' AND s.unit_id IN (SELECT unit_id FROM done)
            WINDOW w AS (PARTITION BY s.unit_id, l.rubric_item_id)
        )
        SELECT pool_id, expert_id, MIN(wk), MIN(ability), SUM(n - 1),
               SUM(CASE WHEN hit THEN k ELSE n - k END - 1)
        FROM labelled
        GROUP BY pool_id, expert_id{extra}
    """
    units_sql = f"""
        WITH {done}
        SELECT u.pool_id, s.expert_id, MIN({week_sql}), COUNT(*)
        FROM {sub} s JOIN {unit} u ON u.id = s.unit_id
        WHERE s.kind = 'rating' AND s.unit_id IN (SELECT unit_id FROM done)
        GROUP BY u.pool_id, s.expert_id{", " + week_sql if by_week else ""}
    """
    with connection.cursor() as cursor:
        cursor.execute(comparisons, pool_ids)
        compared_rows = cursor.fetchall()
        cursor.execute(units_sql, pool_ids)
        unit_rows = cursor.fetchall()

    def week_key(value) -> date | None:
        return week_of_bucket(int(value)) if by_week and value is not None else None

    cells: dict[tuple[int, int, date | None, str | None], Agreement] = {}
    for pool_id, expert_id, wk, ability, compared, agreed in compared_rows:
        cells[(pool_id, expert_id, week_key(wk), ability)] = Agreement(
            agreed=int(agreed or 0), compared=int(compared or 0)
        )
    for pool_id, expert_id, wk, units in unit_rows:
        key = (pool_id, expert_id, week_key(wk), None)
        cell = cells.get(key, Agreement())
        cells[key] = Agreement(agreed=cell.agreed, compared=cell.compared, units=int(units))
    return AgreementTable(cells=cells)


def peer_agreement_by(*, pool_ids: Iterable[int]) -> dict[tuple[int, int], Agreement]:
    """(pool id, expert id) → pairwise agreement on the pools' completed units.

    Summed from the rows recorded as each unit completed (``annotation.PeerAgreement``, one
    per rating submission): no label is read, so this needs no cache. It equals
    ``peer_agreement_table(...).roll_up()``, which counts the labels (the tests hold them
    to it).
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
