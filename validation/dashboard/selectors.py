"""Reads of the admin dashboard: study progress and quality trends (alerts in ``alerts``,
runs in ``runs``).

Staff only; nothing here is ever shown to an expert. Every figure is aggregated by the
database (grouped counts over all studies or experts at once), so a page costs a fixed
handful of queries whatever the number of experts, units or labels.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models import Expert, Pool
from annotation.quality import QUALITY_MIN_UNITS, Agreement, combine
from annotation.selectors import (
    experts_active,
    experts_by_id,
    pool_experts,
    pool_units,
    rating_assignments_leased,
    rating_submissions,
)
from validation.dashboard import rules
from validation.dashboard.agreement import peer_agreement_table
from validation.models import Study, StudyUnit

# The progress buckets of a study's units, in the order the dashboard shows them.
PENDING = "pending"
IN_PROGRESS = "in_progress"
GOLD = "gold"
WAITING_SENIOR = "waiting_senior"
ADJUDICATED = "adjudicated"
INCOMPLETE = "incomplete"
DROPPED = "dropped"  # left out of the sample when the study closed
BUCKETS = (PENDING, IN_PROGRESS, GOLD, WAITING_SENIOR, ADJUDICATED, INCOMPLETE, DROPPED)
# StudyUnit state of a unit whose three ratings split on a criterion a senior must decide.
AWAITING = "awaiting"

STATUS_LABELS = {
    "draft": _("draft"),
    "open": _("open"),
    "closed": _("closed"),
    "pending": _("pending"),
    "running": _("running"),
    "finished": _("finished"),
    "stopped": _("stopped"),
    "failed": _("failed"),
    "all": _("all"),
    "normal": _("normal"),
    "hard": _("hard"),
}


def status_label(value: str) -> str:
    """A study, run or mode word in the interface language (unknown words as they are)."""
    return str(STATUS_LABELS.get(value, value))


DAYS_CHARTED = 30
WEEKS_SHOWN = 8


def _bucket(state: str, needs_adjudication: bool, busy: bool) -> str:
    if state == StudyUnit.State.ADJUDICATED:
        return ADJUDICATED
    if state == AWAITING or (state == StudyUnit.State.INCOMPLETE and needs_adjudication):
        return WAITING_SENIOR
    if state == StudyUnit.State.GOLD:
        return GOLD
    if state == StudyUnit.State.INCOMPLETE:
        return INCOMPLETE
    if state == StudyUnit.State.DROPPED:
        return DROPPED
    return IN_PROGRESS if busy else PENDING


def _unit_buckets(studies: list[Study]) -> tuple[dict[int, dict[str, int]], dict[int, int]]:
    """Study id → its units by bucket, and study id → its units' rating submissions.

    A unit is busy while a rating holds a place on it: a submitted one (the unit's counter,
    kept by the submit) or a lease. Leases are few at any time, so the units leased before
    their first rating are counted apart rather than looked up once per unit.
    """
    keys = ("study_id", "state", "unit__needs_adjudication")
    rows = (
        StudyUnit.objects.filter(study__in=studies)
        .values_list(*keys)
        .annotate(
            n=Count("id"),
            rated=Count("id", filter=Q(unit__ratings__gt=0)),
            ratings=Sum("unit__ratings"),
        )
        .order_by()
    )
    leased = dict(
        ((study_id, state, needs), n)
        for study_id, state, needs, n in StudyUnit.objects.filter(
            study__in=studies,
            unit__ratings=0,
            unit_id__in=rating_assignments_leased().values("unit_id"),
        )
        .values_list(*keys)
        .annotate(n=Count("id"))
        .order_by()
    )
    counts: dict[int, dict[str, int]] = {s.pk: dict.fromkeys(BUCKETS, 0) for s in studies}
    ratings: dict[int, int] = dict.fromkeys(counts, 0)
    for study_id, state, needs, n, rated, submitted in rows:
        busy = rated + leased.get((study_id, state, needs), 0)
        counts[study_id][_bucket(state, needs, True)] += busy
        counts[study_id][_bucket(state, needs, False)] += n - busy
        ratings[study_id] += submitted
    return counts, ratings


def _recent_ratings(studies: list[Study], *, since: datetime) -> dict[int, int]:
    """Pool id → rating submissions since ``since`` (the pace; the study page's chart counts
    the same rows per day)."""
    rows = (
        rating_submissions()
        .filter(unit__pool__in=[s.pool_id for s in studies], submitted_at__gte=since)
        .values_list("unit__pool_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return dict(rows)


@dataclass
class StudyProgress:
    study: Study
    units: int
    buckets: dict[str, int]
    ratings_done: int
    pace: rules.Pace

    @property
    def status_label(self) -> str:
        return status_label(self.study.pool.status)

    @property
    def done_share(self) -> float:
        finished = self.buckets[GOLD] + self.buckets[ADJUDICATED]
        sample = self.units - self.buckets[DROPPED]
        return finished / sample if sample else 0.0


def _progress(studies: list[Study], *, today: date, now: datetime) -> dict[int, StudyProgress]:
    buckets, ratings = _unit_buckets(studies)
    recent_ratings = _recent_ratings(studies, since=now - timedelta(days=rules.PACE_DAYS))
    found = {}
    for study in studies:
        units = sum(buckets[study.pk].values())
        total, recent = ratings[study.pk], recent_ratings.get(study.pool_id, 0)
        open_units = units - buckets[study.pk][GOLD] - buckets[study.pk][ADJUDICATED]
        # Ratings still needed: a full set for every unit without gold, less those already in.
        # (A unit's extra ratings past raters_per_unit cannot happen: slots are 1..raters.)
        needed = units * study.pool.raters_per_unit - total if open_units else 0
        if study.pool.status != Pool.Status.OPEN:
            needed = 0  # a draft has no pace yet, a closed study has nothing left to rate
        found[study.pk] = StudyProgress(
            study=study,
            units=units,
            buckets=buckets[study.pk],
            ratings_done=total,
            pace=rules.pace_forecast(
                remaining=needed,
                recent_submissions=recent,
                today=today,
                due=study.due_date if study.pool.status == Pool.Status.OPEN else None,
            ),
        )
    return found


def studies_list() -> list[Study]:
    return list(Study.objects.select_related("pool", "dataset").order_by("-created_at", "-id"))


def studies_progress(*, studies: list[Study], now: datetime | None = None) -> list[StudyProgress]:
    now = now or timezone.now()
    progress = _progress(studies, today=timezone.localdate(now), now=now)
    return [progress[s.pk] for s in studies]


@dataclass
class ExpertRow:
    expert: Expert
    submissions: int
    leased: int
    agreement: Agreement
    weeks: dict[date, Agreement] = field(default_factory=dict)

    @property
    def quality(self) -> float | None:
        """Agreement once it rests on enough units (annotation.quality's rule), else None."""
        if self.agreement.units < QUALITY_MIN_UNITS:
            return None
        return self.agreement.share


@dataclass
class StudyDetail:
    progress: StudyProgress
    experts: list[ExpertRow]
    per_day: list[tuple[date, int]]
    weeks: list[date]
    abilities: list[tuple[str, Agreement]]
    overall: Agreement
    # (pool id, expert id) → agreement, for the alerts of the same page.
    agreement: dict[tuple[int, int], Agreement]


def study_detail(*, study: Study, now: datetime | None = None) -> StudyDetail:
    """Everything the study's dashboard shows, in a fixed number of grouped queries."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    progress = _progress([study], today=today, now=now)[study.pk]
    pool = study.pool
    members = list(pool_experts(pool=pool))
    subs = dict(
        rating_submissions()
        .filter(unit__pool=pool)
        .values_list("expert_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    leased = dict(
        rating_assignments_leased()
        .filter(pool=pool)
        .values_list("expert_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    table = peer_agreement_table(pool_ids=[pool.pk])
    overall = table.roll_up()
    first_week = rules.week_start(today) - timedelta(weeks=WEEKS_SHOWN - 1)
    weeks = [first_week + timedelta(weeks=i) for i in range(WEEKS_SHOWN)]
    by_expert_week: dict[int, dict[date, Agreement]] = defaultdict(dict)
    for (_pool, expert_id, week), agreement in table.roll_up(week=True).items():
        if week >= first_week:
            by_expert_week[expert_id][week] = agreement
    # Raters who left the pool still count in its figures: list them too.
    known = {e.pk for e in members}
    others = {eid for eid in subs if eid not in known}
    if others:
        members += list(experts_by_id(ids=list(others)).values())
    rows = [
        ExpertRow(
            expert=e,
            submissions=subs.get(e.pk, 0),
            leased=leased.get(e.pk, 0),
            agreement=overall.get((pool.pk, e.pk), Agreement()),
            weeks=by_expert_week.get(e.pk, {}),
        )
        for e in members
    ]
    per_day_rows = dict(
        rating_submissions()
        .filter(unit__pool=pool, submitted_at__gte=now - timedelta(days=DAYS_CHARTED))
        .annotate(day=TruncDate("submitted_at"))
        .values_list("day")
        .annotate(n=Count("id"))
        .order_by()
    )
    days = [today - timedelta(days=DAYS_CHARTED - 1 - i) for i in range(DAYS_CHARTED)]
    by_ability: dict[str, list[Agreement]] = defaultdict(list)
    for (_pool, _expert, ability), agreement in table.roll_up(ability=True).items():
        if ability is not None:  # the None cells hold the unit counts only
            by_ability[ability].append(agreement)
    return StudyDetail(
        progress=progress,
        experts=rows,
        per_day=[(d, per_day_rows.get(d, 0)) for d in days],
        weeks=weeks,
        abilities=sorted((a, combine(parts)) for a, parts in by_ability.items()),
        overall=combine(overall.values()),
        agreement=overall,
    )


# ---- what the routing form offers --------------------------------------------------------


def route_choices(*, study: Study) -> list[Expert]:
    """Active experts of the study, for the manual-routing form (the service checks the rest)."""
    return list(experts_active().filter(pools=study.pool))


def study_get_for_admin(*, name: str) -> Study | None:
    return Study.objects.select_related("pool", "dataset").filter(name=name).first()


def unit_in_study(*, study: Study, token: str):
    """The study's unit with this token, or None (never a unit of another study)."""
    return pool_units(pool=study.pool).filter(token=token).first()


def expert_in_study(*, study: Study, expert_id) -> Expert | None:
    try:
        key = int(expert_id)
    except (TypeError, ValueError):
        return None
    return pool_experts(pool=study.pool).filter(pk=key).first()
