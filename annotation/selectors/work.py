"""Where an expert stands in a study: whether the next-unit claim can hand them work now, and
if not, which state holds.

One owner for the order of the rules: ``work_gate`` is what the claim
(``annotation.services.claims``) walks before it looks at units, and the pages and the study
list read the same gate here, without claiming anything. Blind like the rest of the expert
side: a state names the expert's own situation (their daily limit, the study's open/closed
state, whether any unit is left *for them*), never how far the study is or what others did.

Calibration is not a state of its own: when a study sends the expert to calibration, the
claim hands out the calibration set's units, which look exactly like study work.
"""

import random
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.db.models import (
    Count,
    Exists,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation import selectors
from annotation.assignment import Candidate, HardCases
from annotation.models import (
    Assignment,
    CalibrationSet,
    Expert,
    Pool,
    PoolTally,
    Unit,
    could_name_a_study,
)
from annotation.selectors import quality as selectors_quality
from benchmark.selectors.rubric import case_criteria
from config import compiled


class WorkState(StrEnum):
    READY = "ready"  # the claim hands out a unit (a held one, a study unit or calibration)
    NOT_ENROLLED = "not_enrolled"  # no study of that name has this expert (or none exists)
    NOT_OPEN_YET = "not_open_yet"  # the study is still a draft
    STUDY_CLOSED = "study_closed"
    CAPACITY_REACHED = "capacity_reached"  # the expert's daily capacity is used up for today
    NOTHING_LEFT = "nothing_left"  # every unit the expert could rate has its raters


# The states in which the claim hands out nothing although the study is the expert's.
NOTHING_TO_HAND_OUT = (
    WorkState.NOT_OPEN_YET,
    WorkState.STUDY_CLOSED,
    WorkState.CAPACITY_REACHED,
    WorkState.NOTHING_LEFT,
)


@dataclass(frozen=True)
class CalibrationDue:
    """The claim must hand out units of this calibration set (a sitting for ``reason``)."""

    calibration_set: CalibrationSet
    reason: str


def calibration_work_due(*, pool: Pool, expert: Expert) -> CalibrationDue | WorkState | None:
    """Calibration the expert must do before study work; NOTHING_LEFT for a calibration set
    opened directly and already passed; None when study work may go ahead."""
    calibration_set = getattr(pool, "calibration_set", None)
    if calibration_set is not None:
        # The set opened directly: continue a sitting, or start one unless already passed.
        latest = selectors_quality.calibration_latest(
            expert=expert, calibration_set=calibration_set
        )
        open_sitting = calibration_set.attempts.filter(
            expert=expert, finished_at__isnull=True
        ).exists()
        if latest is not None and latest.passed and not open_sitting:
            return WorkState.NOTHING_LEFT
        reason = selectors_quality.FIRST if latest is None else selectors_quality.RETAKE
        return CalibrationDue(calibration_set=calibration_set, reason=reason)
    reason = selectors_quality.calibration_due(expert=expert, pool=pool)
    if reason is None and pool.calibration_id is not None:
        # An admin sent the expert back (an open sitting, routing.expert_require_recalibration),
        # or that sitting ended failed: study work waits for a pass.
        latest = selectors_quality.calibration_latest(
            expert=expert, calibration_set=pool.calibration
        )
        if (latest is not None and not latest.passed) or pool.calibration.attempts.filter(
            expert=expert, finished_at__isnull=True
        ).exists():
            reason = selectors_quality.RECALIBRATION
    if reason is None:
        return None
    return CalibrationDue(calibration_set=pool.calibration, reason=reason)


def work_gate(
    *, pool: Pool, expert: Expert, submitted_today: int
) -> WorkState | CalibrationDue | None:
    """What decides the expert's next work before any unit is looked at, in the claim's order
    (after a held lease, which always comes back first): the study's state, calibration, the
    daily capacity (``submitted_today``: ``selectors.submissions_today``, or the claim's
    study read). None means rating work, if a unit is left for them."""
    if pool.status == Pool.Status.DRAFT:
        return WorkState.NOT_OPEN_YET
    if pool.status != Pool.Status.OPEN:
        return WorkState.STUDY_CLOSED
    calibration = calibration_work_due(pool=pool, expert=expert)
    if calibration is not None:
        return calibration
    if submitted_today >= expert.daily_capacity:
        return WorkState.CAPACITY_REACHED
    return None


# How many of the pool's free units one claim reads and ranks (``rating_candidates``).
CANDIDATE_WINDOW = 64


def _pools_for_claim(*, expert_id: int, today: datetime) -> QuerySet[Pool]:
    """Pools as a claim reads its study, in one statement: with the calibration set (the gate
    asks whether the pool is one), the expert's open lease in it (``held_lease``: an id or
    None) and their submissions today over all studies (``submitted_today``, for
    ``work_gate``); the pool's own record of its units is a column (``window_pivot``). The
    open lease is found through a partial index that names its status, so the statement is
    compiled with the status written in (``pool_for_claim``, ``pool_for_claim_by_id``)."""
    held = _open_leases(pool=OuterRef("pk"), expert=expert_id)
    return Pool.objects.select_related("calibration_set").annotate(
        held_lease=Subquery(held.values("pk")[:1]),
        submitted_today=_count_of(selectors.submissions_since(expert=expert_id, start=today)),
    )


def pool_for_claim(*, expert: Expert, name: str, now: datetime) -> Pool | None:
    """The expert's study of that name read as a claim reads it (``_pools_for_claim``), or
    None (also for a name no study can have, ``could_name_a_study``); the statement compiled
    once (``compiled.first``)."""
    if not could_name_a_study(name):
        return None

    def build(*, expert_id: int, name: str, today: datetime) -> QuerySet[Pool]:
        return _pools_for_claim(expert_id=expert_id, today=today).filter(
            experts=expert_id, name=name
        )[:1]

    today = selectors.day_start(now=now)
    return compiled.first(("pool for claim",), build, expert_id=expert.pk, name=name, today=today)


def pool_for_claim_by_id(*, expert: Expert, pool_id: int, now: datetime) -> Pool:
    """The pool of that id read as a claim reads it (``_pools_for_claim``), whether or not the
    expert is part of it (the caller chose the pool); ``Pool.DoesNotExist`` when it is gone."""

    def build(*, expert_id: int, pool_id: int, today: datetime) -> QuerySet[Pool]:
        return _pools_for_claim(expert_id=expert_id, today=today).filter(pk=pool_id)[:1]

    today = selectors.day_start(now=now)
    pool = compiled.first(
        ("pool for claim by id",), build, expert_id=expert.pk, pool_id=pool_id, today=today
    )
    if pool is None:
        raise Pool.DoesNotExist(f"no pool {pool_id}")
    return pool


def _count_of(rows: QuerySet) -> Subquery:
    """``rows.count()`` as a scalar subquery, to read several counts in one statement."""
    return _aggregate_of(rows, Count("pk"))


def _aggregate_of(rows: QuerySet, aggregate) -> Subquery:
    """The rows' ``aggregate`` as a scalar subquery (a sum of no rows is NULL)."""
    grouped = rows.order_by().annotate(one=Value(1)).values("one").annotate(n=aggregate)
    return Subquery(grouped.values("n"), output_field=IntegerField())


def window_pivot(*, pool: Pool) -> int | None:
    """The unit id a claim's window starts from (``rating_candidates``' ``pivot``): a random
    point of a pool whose unit ids span more than one window, so experts asking at once
    spread over it; None on a smaller one, whose first statement then reads it whole from its
    start (no wrapped half). Drawn from the pool's first and last unit id (columns written
    with its units), so the window's statements compare ids with a number, and no statement
    looks for the pool's ends (on PostgreSQL that walked every unit of the newer pools)."""
    first, last = pool.unit_id_first, pool.unit_id_last
    if first is None or last - first + 1 <= CANDIDATE_WINDOW:
        return None
    return first + int((last - first + 1) * random.random())


def rating_candidates(
    *, pool: Pool, expert: Expert, hard: str, now: datetime, pivot: int | None
) -> list[Candidate]:
    """A window of the units this expert may still rate, with their taken rater slots.

    Never the whole pool, so a claim costs the same on 500 units as on 50,000: the preference
    tiers of ``annotation.assignment`` that are not about the count (specialty match, hard
    cases first) are walked in SQL, best first, and the first tier holding any free unit gives
    up to ``CANDIDATE_WINDOW`` of them, in unit order from the unit id ``pivot`` on (from the
    pool's start when None), wrapping around. ``rank_candidates`` then orders the window
    (fewest raters first, the expert's own spread); a fresh ``pivot`` per claim
    (``window_pivot``) spreads experts asking at once over the pool.
    """
    for tier in range(len(_preference_tiers(expert=expert, hard=hard))):
        rows = _window(pool=pool, expert=expert, hard=hard, tier=tier, now=now, pivot=pivot)
        if rows:
            return [Candidate(unit_id=pk, taken=taken) for pk, taken in rows]
    return []


def _preference_tiers(*, expert: Expert, hard: str) -> list[Q]:
    """Filters of the units in ``rank_candidates``'s order of preference, before the count."""
    dimensions = []
    if expert.specialties:
        abilities = case_criteria(case_id=OuterRef("response__case")).filter(
            ability__in=expert.specialties
        )
        dimensions.append(
            Q(response__case__primary_scene__in=expert.specialties) | Q(Exists(abilities))
        )
    if hard == HardCases.FIRST:
        dimensions.append(Q(response__case__difficulty="hard"))
    tiers = [Q()]
    for dimension in dimensions:
        tiers = [tier & wanted for tier in tiers for wanted in (dimension, ~dimension)]
    return tiers


def _window(
    *, pool: Pool, expert: Expert, hard: str, tier: int, now: datetime, pivot: int | None
) -> list[tuple[int, int]]:
    """(unit id, taken) of up to ``CANDIDATE_WINDOW`` free units of the preference tier, from
    ``pivot`` on, wrapping. Each half is compiled once per shape, its plan kept whatever the
    pivot (``compiled.rows_one_plan``)."""

    def half(pivot_lookup: str | None) -> list[tuple[int, int]]:
        def build(*, pool_id: int, expert_id: int, now: datetime, pivot: int = 0) -> QuerySet:
            units = _units_for(
                pool_id=pool_id,
                raters_per_unit=pool.raters_per_unit,
                expert_id=expert_id,
                hard=hard,
                now=now,
            ).filter(_preference_tiers(expert=expert, hard=hard)[tier])
            if pivot_lookup:
                units = units.filter(**{f"pk__{pivot_lookup}": pivot})
            return units.order_by("pk").values_list("pk", "taken")[:CANDIDATE_WINDOW]

        key = ("window", pool.raters_per_unit, hard, tuple(expert.specialties), tier)
        values = {"pool_id": pool.pk, "expert_id": expert.pk, "now": now}
        if pivot_lookup:
            values["pivot"] = pivot
        return compiled.rows_one_plan((*key, pivot_lookup), build, **values)

    if pivot is None:
        return half(None)
    rows = half("gte")
    if len(rows) < CANDIDATE_WINDOW:
        # The same limit as the first half (one shape to compile), cut here.
        rows += half("lt")[: CANDIDATE_WINDOW - len(rows)]
    return rows


def _free_units(
    *, pool_id: int, raters_per_unit: int, expert_id: int, now: datetime
) -> QuerySet[Unit]:
    """The pool's units with a rater slot free at ``now`` that the expert does not hold or
    rated, each with its ``taken`` slots.

    Reads without writing: a lease that ran out by ``now`` counts as free although no sweep
    may have marked it expired yet (``leases_expire`` over the pool, by the first claim in a
    minute and by a claim whose inserts were all refused). Every condition is a subquery on the
    unit's own assignments, so the database walks the pool in unit order and stops at the
    window's end instead of counting every unit.
    """
    live = Q(status=Assignment.Status.SUBMITTED) | Q(
        status=Assignment.Status.LEASED, lease_expires_at__gt=now
    )
    ratings = Assignment.objects.filter(unit=OuterRef("pk"), kind=Assignment.Kind.RATING)
    taken = ratings.filter(live).values("unit").annotate(n=Count("pk")).values("n")
    return (
        Unit.objects.filter(pool=pool_id, ratings_complete=False)
        .exclude(Exists(ratings.filter(live, expert=expert_id)))
        .annotate(taken=Coalesce(Subquery(taken), 0))
        .filter(taken__lt=raters_per_unit)
    )


def _units_for(
    *, pool_id: int, raters_per_unit: int, expert_id: int, hard: str, now: datetime
) -> QuerySet[Unit]:
    """``_free_units`` less the hard cases the study's policy keeps from the expert (the
    claim drops exactly those; specialties only order)."""
    units = _free_units(
        pool_id=pool_id, raters_per_unit=raters_per_unit, expert_id=expert_id, now=now
    )
    if hard == HardCases.NONE:
        units = units.exclude(response__case__difficulty="hard")
    return units


def hard_cases_for(*, pool: Pool, expert: Expert) -> str:
    """The study's hard-case policy applied to this expert (``HardCases``)."""
    if pool.hard_min_quality is None:
        return HardCases.ANY
    standing = selectors_quality.expert_quality_get(expert=expert).quality
    proven = standing is not None and standing >= pool.hard_min_quality
    return HardCases.FIRST if proven else HardCases.NONE


def work_state_in_pool(*, expert: Expert, pool: Pool, now: datetime | None = None) -> WorkState:
    """The state the next-unit claim would find, read without claiming or writing anything."""
    now = now or timezone.now()
    held = lease_open_in_pool(pool=pool, expert=expert)
    if held is not None and held.lease_expires_at > now:
        return WorkState.READY
    today = selectors.submissions_today(expert=expert, now=now)
    gate = work_gate(pool=pool, expert=expert, submitted_today=today)
    if isinstance(gate, CalibrationDue):
        return WorkState.READY
    if gate is not None:
        return gate
    left = _any_unit_left(pool=pool, expert=expert, now=now)
    return WorkState.READY if left else WorkState.NOTHING_LEFT


def lease_open_in_pool(*, pool: Pool, expert: Expert) -> Assignment | None:
    """The expert's open lease in the pool (at most one: the one-open-lease constraint), run
    out or not, or None; what a reload gets back and the study state's "do I hold a unit".
    Compiled (``compiled.first``) with its status written in, so that a kept plan finds the
    lease through the partial index of open leases. Sent by the ORM with the status a
    parameter, the kept plan scanned every assignment of every study: 12.6 ms at 136,350 of
    them (docs/benchmarks.md)."""

    def build(*, pool_id: int, expert_id: int) -> QuerySet[Assignment]:
        return _open_leases(pool=pool_id, expert=expert_id)[:1]

    return compiled.first(("open lease in pool",), build, pool_id=pool.pk, expert_id=expert.pk)


def _open_leases(*, pool, expert) -> QuerySet[Assignment]:
    """The expert's leases in the pool, run out or not: one at most (the one-open-lease
    constraint), so unordered. The claim's study read asks it as a subquery (``pool`` an
    ``OuterRef``), ``lease_open_in_pool`` on its own."""
    return Assignment.objects.filter(
        pool=pool, expert=expert, status=Assignment.Status.LEASED
    ).order_by()


def _any_unit_left(*, pool: Pool, expert: Expert, now: datetime) -> bool:
    """Whether the claim could still hand this expert a unit, asked in the database without
    writing (``_units_for``); the walk stops at the first one. Compiled once per shape, its
    plan kept whatever the values, as the window's (``compiled.rows_one_plan``)."""
    hard = hard_cases_for(pool=pool, expert=expert)

    def build(*, pool_id: int, expert_id: int, now: datetime) -> QuerySet:
        units = _units_for(
            pool_id=pool_id,
            raters_per_unit=pool.raters_per_unit,
            expert_id=expert_id,
            hard=hard,
            now=now,
        )
        return units.order_by().values_list("pk")[:1]

    key = ("any unit left", pool.raters_per_unit, hard)
    return bool(compiled.rows_one_plan(key, build, pool_id=pool.pk, expert_id=expert.pk, now=now))


# Progress counts the units left for an expert up to here, not over every waiting unit: past
# it the workbench shows "100+" (``Progress.left_for_me_more``).
LEFT_FOR_ME_CAP = 100


class _CountUpTo(Subquery):
    """The rows of a sliced queryset, counted as a scalar subquery: the walk stops at the
    slice's end."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) AS counted)"
    output_field = IntegerField()


@dataclass(frozen=True)
class Progress:
    """A study's progress as one expert may see it: their own work and the team's totals."""

    mine: int  # units I rated in this study
    # Units I could still be handed (the one I hold not counted), up to LEFT_FOR_ME_CAP;
    # left_for_me_more when more than that are left.
    left_for_me: int
    left_for_me_more: bool
    capacity_left: int  # units I may still submit today, over all studies
    team_complete: int  # units with all their ratings
    team_total: int


def study_progress(
    *,
    expert: Expert,
    pool: Pool,
    now: datetime | None = None,
    submitted_today: int | None = None,
    hard: str | None = None,
) -> Progress:
    """Counts only: never a unit's labels, votes or who rated it. The expert's own count,
    the study's complete units (its tally, ``PoolTally``), today's submissions (unless the
    caller read them already: ``submitted_today``, as the claim's study read does) and, while
    it is open, the units left for the expert (``_units_for``, counted up to one past
    ``LEFT_FOR_ME_CAP``, under the study's hard-case policy for them: ``hard``, unless the
    caller applied it already, as the claim does) are one statement's scalar subqueries,
    compiled once per shape (``compiled.rows``); the study's units are the pool's count of
    them. None of them walks the pool."""
    now = now or timezone.now()
    open_now = pool.status == Pool.Status.OPEN
    if not open_now:
        hard = None
    elif hard is None:
        hard = hard_cases_for(pool=pool, expert=expert)
    count_today = submitted_today is None

    def build(
        *,
        pool_id: int,
        expert_id: int,
        today: datetime | None = None,
        now: datetime | None = None,
    ) -> QuerySet:
        mine = Assignment.objects.filter(
            pool=pool_id,
            kind=Assignment.Kind.RATING,
            status=Assignment.Status.SUBMITTED,
            expert=expert_id,
        )
        counts = {
            "mine": _count_of(mine),
            "complete": _aggregate_of(
                PoolTally.objects.filter(pool=pool_id), Sum("units_complete")
            ),
        }
        if count_today:
            counts["today"] = _count_of(selectors.submissions_since(expert=expert_id, start=today))
        if open_now:
            left = _units_for(
                pool_id=pool_id,
                raters_per_unit=pool.raters_per_unit,
                expert_id=expert_id,
                hard=hard,
                now=now,
            )
            # Unordered: the walk stops at the cap's row instead of sorting every free unit.
            counts["left"] = _CountUpTo(left.order_by().values("pk")[: LEFT_FOR_ME_CAP + 1])
        return Pool.objects.filter(pk=pool_id).order_by().values(**counts)

    values = {"pool_id": pool.pk, "expert_id": expert.pk}
    if count_today:
        values["today"] = selectors.day_start(now=now)
    if open_now:
        values["now"] = now
    # Prepared like the other hot reads: with its statuses written in (``compiled``), its capped
    # count keeps one plan well from an empty pool to a full one (docs/benchmarks.md).
    [row] = compiled.rows(
        ("progress", open_now, count_today, pool.raters_per_unit, hard), build, **values
    )
    mine, complete, *rest = row
    today = rest.pop(0) if count_today else submitted_today
    left_for_me = rest[0] if open_now else 0
    return Progress(
        mine=mine,
        left_for_me=min(left_for_me, LEFT_FOR_ME_CAP),
        left_for_me_more=left_for_me > LEFT_FOR_ME_CAP,
        capacity_left=max(0, expert.daily_capacity - today),
        team_complete=complete or 0,
        team_total=pool.units_total,
    )


def pool_find_for_expert(*, user, name: str) -> Pool | None:
    """The expert's study of that name, drafts included (its state says "not open yet");
    None when the expert is not part of one, whether or not a study of that name exists."""
    # The calibration set read alongside: the gate asks whether the pool is one.
    pools = selectors.expert_for_user(user=user).pools.select_related("calibration_set")
    return pools.filter(name=name).first()


def study_work_state(
    *, user, name: str, now: datetime | None = None
) -> tuple[Pool | None, WorkState]:
    """The expert's study of that name and its state; (None, NOT_ENROLLED) when the expert is
    not part of a study of that name."""
    pool = pool_find_for_expert(user=user, name=name)
    if pool is None:
        return None, WorkState.NOT_ENROLLED
    expert = selectors.expert_for_user(user=user)
    return pool, work_state_in_pool(expert=expert, pool=pool, now=now)


def studies_with_work_state(*, user, now: datetime | None = None) -> list[tuple[Pool, WorkState]]:
    """The expert's studies as their list shows them (``selectors.pools_for_expert``), each
    with its state."""
    expert = selectors.expert_for_user(user=user)
    now = now or timezone.now()
    return [
        (pool, work_state_in_pool(expert=expert, pool=pool, now=now))
        for pool in selectors.pools_for_expert(user=user)
    ]
