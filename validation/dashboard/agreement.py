"""Peer agreement of many experts at once, split by week and ability for the study page.

When the last of a unit's raters submits, annotation records each rating submission's
pairwise agreement with the others (``annotation.PeerAgreement``, by the one rule
``annotation.quality.unit_peer_agreements``); a unit is completed then and only then. The
per (pool, expert) totals are those rows' sums (``annotation.selectors.quality
.peer_agreement_by``). The study page's split by week and ability, which the rows do not hold,
is the same rule applied per ability to the completed units' labels
(``annotation.selectors.quality.peer_agreement_by_ability``), summed here by week
(``submission_week``). Cached per pool.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.core.cache import cache
from django.db.models import Count, Max

from annotation.quality import Agreement, combine
from annotation.selectors import rating_submissions
from annotation.selectors.quality import peer_agreement_by_ability
from validation.dashboard import rules


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


def submission_week(submitted_at: datetime) -> date:
    """The Monday of the week (UTC) a submission counts in."""
    return rules.week_start(submitted_at.astimezone(UTC).date())


def _table_compute(*, pool_ids: list[int]) -> AgreementTable:
    """The pools' completed ratings with their agreement per ability, summed by week and
    ability. The unit counts are kept on ability None cells, so roll-ups over abilities count
    each unit once."""
    sums: dict[tuple[int, int, date, str | None], list[int]] = defaultdict(lambda: [0, 0, 0])
    for rating in peer_agreement_by_ability(pool_ids=pool_ids):
        week = submission_week(rating.submitted_at)
        sums[(rating.pool_id, rating.expert_id, week, None)][2] += 1
        for ability, agreement in rating.abilities.items():
            cell = sums[(rating.pool_id, rating.expert_id, week, ability)]
            cell[0] += agreement.agreed
            cell[1] += agreement.compared
    cells = {
        key: Agreement(agreed=agreed, compared=compared, units=units)
        for key, (agreed, compared, units) in sums.items()
    }
    return AgreementTable(cells=cells)
