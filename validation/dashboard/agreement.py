"""Peer agreement of many experts at once, counted by the database.

``annotation.selectors_quality.expert_peer_agreement`` reads one expert's labels into Python
and counts with ``annotation.quality.peer_agreement``; fifty experts over 200,000 labels that
way is fifty round trips and every label in memory. The count is the same sum, so it is done
in SQL here: on a completed unit, a label of criterion *i* is compared with the other
``n_i − 1`` raters' labels of *i* and agrees with ``k_i − 1`` of them when it is a hit (``k_i``
hits among ``n_i``), ``n_i − k_i − 1`` when it is a miss. Completed means what it means there:
all of the pool's raters (and at least two) submitted. The totals come back as
``annotation.quality.Agreement`` so the same rules (``running_quality``, ``below_bar``) apply;
``tests/validation/test_dashboard_db.py`` checks the two counts match.
"""

from collections.abc import Iterable
from datetime import date, timedelta

from django.db import connection

from annotation.models import Label, Pool, Submission, Unit
from annotation.quality import Agreement
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


BUCKETS = ("all", "week", "ability")


def peer_agreement_by(
    *, pool_ids: Iterable[int], bucket: str = "all"
) -> dict[tuple[int, int, object], Agreement]:
    """(pool id, expert id, bucket) → pairwise agreement on the pools' completed units.

    ``bucket`` is ``all`` (one figure per expert and pool; the key's last part is None),
    ``week`` (the Monday of the week the expert submitted the unit) or ``ability`` (the
    criterion's ability code).
    """
    if bucket not in BUCKETS:
        raise ValueError(f"bucket must be one of {BUCKETS}")
    pool_ids = [int(pk) for pk in pool_ids]
    if not pool_ids:
        return {}
    label, sub = Label._meta.db_table, Submission._meta.db_table
    unit, pool, item = Unit._meta.db_table, Pool._meta.db_table, RubricItem._meta.db_table
    # (No constant in GROUP BY for "all": a bare number there means a column position.)
    key_sql = {"all": "NULL", "week": _week_sql(), "ability": "ri.ability"}[bucket]
    group_key = "" if bucket == "all" else f", {key_sql}"
    item_join = f"JOIN {item} ri ON ri.id = l.rubric_item_id" if bucket == "ability" else ""
    marks = ", ".join(["%s"] * len(pool_ids))
    sql = f"""
        WITH done AS (
            SELECT s.unit_id
            FROM {sub} s JOIN {unit} u ON u.id = s.unit_id JOIN {pool} p ON p.id = u.pool_id
            WHERE s.kind = 'rating' AND u.pool_id IN ({marks})
            GROUP BY s.unit_id, p.raters_per_unit
            HAVING COUNT(*) >= p.raters_per_unit AND COUNT(*) >= 2
        ),
        per_item AS (
            SELECT s.unit_id, l.rubric_item_id, COUNT(*) AS n,
                   SUM(CASE WHEN l.hit THEN 1 ELSE 0 END) AS k
            FROM {label} l JOIN {sub} s ON s.id = l.submission_id
            WHERE s.kind = 'rating' AND s.unit_id IN (SELECT unit_id FROM done)
            GROUP BY s.unit_id, l.rubric_item_id
        )
        SELECT u.pool_id, s.expert_id, {key_sql} AS bucket,
               SUM(pi.n - 1) AS compared,
               SUM(CASE WHEN l.hit THEN pi.k ELSE pi.n - pi.k END - 1) AS agreed,
               COUNT(DISTINCT s.unit_id) AS units
        FROM {label} l
        JOIN {sub} s ON s.id = l.submission_id
        JOIN {unit} u ON u.id = s.unit_id
        JOIN per_item pi ON pi.unit_id = s.unit_id AND pi.rubric_item_id = l.rubric_item_id
        {item_join}
        WHERE s.kind = 'rating'
        GROUP BY u.pool_id, s.expert_id{group_key}
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, pool_ids)
        rows = cursor.fetchall()
    found: dict[tuple[int, int, object], Agreement] = {}
    for pool_id, expert_id, key, compared, agreed, units in rows:
        if bucket == "all":
            key = None
        elif bucket == "week":
            key = week_of_bucket(int(key))
        found[(pool_id, expert_id, key)] = Agreement(
            agreed=int(agreed or 0), compared=int(compared or 0), units=int(units or 0)
        )
    return found
