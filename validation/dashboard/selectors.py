"""Reads of the admin dashboard: study progress, quality trends, risk alerts, runs.

Staff only; nothing here is ever shown to an expert. Every figure is aggregated by the
database (grouped counts over all studies or experts at once), so a page costs a fixed
handful of queries whatever the number of experts, units or labels.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Q, Value, When
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models import ACTIVE, Assignment, Expert, Pool, Submission
from annotation.quality import QUALITY_MIN_UNITS, Agreement, combine
from benchmark.models import GenerationRun, JudgeRun, Response, Verdict
from validation.dashboard import rules
from validation.dashboard.agreement import peer_agreement_by, peer_agreement_table
from validation.models import Study, StudyUnit

# The progress buckets of a study's units, in the order the dashboard shows them.
PENDING = "pending"
IN_PROGRESS = "in_progress"
GOLD = "gold"
WAITING_SENIOR = "waiting_senior"
ADJUDICATED = "adjudicated"
INCOMPLETE = "incomplete"
BUCKETS = (PENDING, IN_PROGRESS, GOLD, WAITING_SENIOR, ADJUDICATED, INCOMPLETE)
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
RECENT_RUNS = 20
RUNNING = (JudgeRun.Status.PENDING, JudgeRun.Status.RUNNING)
# Runs still going sort first.
RUNNING_FIRST = Case(
    When(status__in=RUNNING, then=Value(0)), default=Value(1), output_field=IntegerField()
)


def _bucket(state: str, needs_adjudication: bool, busy: bool) -> str:
    if state == StudyUnit.State.ADJUDICATED:
        return ADJUDICATED
    if state == AWAITING or (state == StudyUnit.State.INCOMPLETE and needs_adjudication):
        return WAITING_SENIOR
    if state == StudyUnit.State.GOLD:
        return GOLD
    if state == StudyUnit.State.INCOMPLETE:
        return INCOMPLETE
    return IN_PROGRESS if busy else PENDING


def _unit_buckets(studies: list[Study]) -> dict[int, dict[str, int]]:
    busy = Assignment.objects.filter(
        unit_id=OuterRef("unit_id"), status__in=ACTIVE, kind=Assignment.Kind.RATING
    )
    rows = (
        StudyUnit.objects.filter(study__in=studies)
        .annotate(busy=Exists(busy))
        .values_list("study_id", "state", "unit__needs_adjudication", "busy")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts: dict[int, dict[str, int]] = {s.pk: dict.fromkeys(BUCKETS, 0) for s in studies}
    for study_id, state, needs, is_busy, n in rows:
        counts[study_id][_bucket(state, needs, is_busy)] += n
    return counts


def _rating_counts(studies: list[Study], *, since: datetime) -> dict[int, tuple[int, int]]:
    """Pool id → (rating submissions in all, rating submissions since ``since``)."""
    rows = (
        Submission.objects.filter(unit__pool__in=[s.pool_id for s in studies], kind="rating")
        .values("unit__pool_id")
        .annotate(total=Count("id"), recent=Count("id", filter=Q(submitted_at__gte=since)))
        .order_by()
    )
    return {r["unit__pool_id"]: (r["total"], r["recent"]) for r in rows}


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
        return finished / self.units if self.units else 0.0


def _progress(studies: list[Study], *, today: date, now: datetime) -> dict[int, StudyProgress]:
    buckets = _unit_buckets(studies)
    counts = _rating_counts(studies, since=now - timedelta(days=rules.PACE_DAYS))
    found = {}
    for study in studies:
        units = sum(buckets[study.pk].values())
        total, recent = counts.get(study.pool_id, (0, 0))
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
    members = list(pool.experts.select_related("user").order_by("user__username"))
    subs = dict(
        Submission.objects.filter(unit__pool=pool, kind="rating")
        .values_list("expert_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    leased = dict(
        Assignment.objects.filter(pool=pool, kind="rating", status=Assignment.Status.LEASED)
        .values_list("expert_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    table = peer_agreement_table(pool_ids=[pool.pk], by_week=True, by_ability=True)
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
        members += list(Expert.objects.filter(pk__in=others).select_related("user"))
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
        Submission.objects.filter(
            unit__pool=pool, kind="rating", submitted_at__gte=now - timedelta(days=DAYS_CHARTED)
        )
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


# ---- risk alerts -------------------------------------------------------------------------


@dataclass(frozen=True)
class WeakExpert:
    study: Study
    expert: Expert
    agreement: Agreement
    outlier: rules.Outlier


@dataclass(frozen=True)
class ExpiringUnit:
    study: Study
    unit_id: int
    token: str
    expired: int


@dataclass(frozen=True)
class LateStudy:
    progress: StudyProgress


@dataclass(frozen=True)
class FailingRun:
    run: JudgeRun
    done: int
    errors: int
    share: float


@dataclass
class Alerts:
    weak_experts: list[WeakExpert] = field(default_factory=list)
    expiring_units: list[ExpiringUnit] = field(default_factory=list)
    late_studies: list[LateStudy] = field(default_factory=list)
    failing_runs: list[FailingRun] = field(default_factory=list)

    def __len__(self) -> int:
        return (
            len(self.weak_experts)
            + len(self.expiring_units)
            + len(self.late_studies)
            + len(self.failing_runs)
        )


def _weak_experts(
    studies: list[Study], figures: dict[tuple[int, int], Agreement] | None
) -> list[WeakExpert]:
    if not studies:
        return []
    by_pool = {s.pool_id: s for s in studies}
    if figures is None:
        figures = peer_agreement_by(pool_ids=list(by_pool))
    per_pool: dict[int, dict[int, Agreement]] = defaultdict(dict)
    for (pool_id, expert_id), agreement in figures.items():
        if agreement.units >= QUALITY_MIN_UNITS and agreement.share is not None:
            per_pool[pool_id][expert_id] = agreement
    found = []
    for pool_id, agreements in per_pool.items():
        study = by_pool[pool_id]
        outliers = rules.weak_experts(
            {e: a.share for e, a in agreements.items()}, min_quality=study.pool.min_quality
        )
        found += [(study, o, agreements[o.key]) for o in outliers]
    experts = Expert.objects.select_related("user").in_bulk([o.key for _, o, _ in found])
    return [
        WeakExpert(study=s, expert=experts[o.key], agreement=a, outlier=o)
        for s, o, a in found
        if experts[o.key].is_active
    ]


def _expiring_units(studies: list[Study], *, now: datetime) -> list[ExpiringUnit]:
    if not studies:
        return []
    by_pool = {s.pool_id: s for s in studies}
    waiting = StudyUnit.objects.filter(study__in=studies, state=StudyUnit.State.PENDING).values(
        "unit_id"
    )
    live = Assignment.objects.filter(
        status=Assignment.Status.LEASED, lease_expires_at__gt=now, pool_id__in=list(by_pool)
    ).values("unit_id")
    rows = (
        Assignment.objects.filter(pool_id__in=list(by_pool), kind=Assignment.Kind.RATING)
        .filter(
            Q(status=Assignment.Status.EXPIRED)
            | Q(status=Assignment.Status.LEASED, lease_expires_at__lte=now)
        )
        .filter(unit_id__in=waiting)
        .exclude(unit_id__in=live)
        .values_list("unit_id", "pool_id", "unit__token")
        .annotate(n=Count("id"))
        .filter(n__gte=rules.EXPIRED_LEASES_ALERT)
        .order_by()
    )
    info = {unit_id: (pool_id, token) for unit_id, pool_id, token, _ in rows}
    ranked = rules.expiring_units({unit_id: n for unit_id, _, _, n in rows})
    return [
        ExpiringUnit(study=by_pool[info[u][0]], unit_id=u, token=info[u][1], expired=n)
        for u, n in ranked
    ]


def _run_counts(run_ids: list[int]) -> dict[int, tuple[int, int]]:
    rows = (
        Verdict.objects.filter(run_id__in=run_ids)
        .values("run_id")
        .annotate(done=Count("id"), errors=Count("id", filter=Q(state=Verdict.State.ERROR)))
        .order_by()
    )
    return {r["run_id"]: (r["done"], r["errors"]) for r in rows}


def _failing_runs(runs: list[JudgeRun]) -> list[FailingRun]:
    counts = _run_counts([r.pk for r in runs])
    found = []
    for run in runs:
        done, errors = counts.get(run.pk, (0, 0))
        verdict = rules.run_error_share(done=done, errors=errors)
        if verdict.alert:
            found.append(FailingRun(run=run, done=done, errors=errors, share=verdict.share))
    return sorted(found, key=lambda f: -f.share)


def alerts_collect(
    *,
    studies: list[Study],
    progress: list[StudyProgress],
    runs: list[JudgeRun] | None = None,
    now: datetime | None = None,
    agreement: dict[tuple[int, int], Agreement] | None = None,
) -> Alerts:
    """The risks worth an admin's action, each with what is needed to act on it.

    Only open studies are looked at (a draft has no work yet, a closed one no more); judge
    runs are those given (the recent ones on the overview, the study's on a study page).
    ``agreement`` is the (pool, expert) figures when the caller has them already.
    """
    now = now or timezone.now()
    open_studies = [s for s in studies if s.pool.status == Pool.Status.OPEN]
    return Alerts(
        weak_experts=_weak_experts(open_studies, agreement),
        expiring_units=_expiring_units(open_studies, now=now),
        late_studies=[LateStudy(progress=p) for p in progress if p.pace.will_miss],
        failing_runs=_failing_runs(runs or []),
    )


def judge_runs_recent(*, limit: int = RECENT_RUNS) -> list[JudgeRun]:
    """Runs still going first, then the most recent ones."""
    return list(
        JudgeRun.objects.select_related("judge", "model", "dataset").order_by(
            RUNNING_FIRST, "-created_at", "-id"
        )[:limit]
    )


def judge_runs_for_study(*, study: Study) -> list[JudgeRun]:
    return list(study.judge_runs.select_related("judge", "model", "dataset"))


# ---- live runs ---------------------------------------------------------------------------


def _share(done: int, total: int) -> float | None:
    return done / total if total else None


def runs_live(*, limit: int = RECENT_RUNS) -> dict:
    """Judge and generation runs with their progress, errors, requests and cost (JSON-ready).

    A judge run's done and error counts come from its verdicts as they are written; totals,
    requests and cost from the stats its engine checkpoints.
    """
    judge_runs = judge_runs_recent(limit=limit)
    counts = _run_counts([r.pk for r in judge_runs])
    totals = dict(
        ((m, d), n)
        for m, d, n in Response.objects.filter(
            model_id__in={r.model_id for r in judge_runs},
            case__dataset_id__in={r.dataset_id for r in judge_runs},
        )
        .values_list("model_id", "case__dataset_id")
        .annotate(n=Count("case__rubric"))
        .order_by()
    )
    judge = []
    for run in judge_runs:
        done, errors = counts.get(run.pk, (0, 0))
        total = run.stats.get("total") or totals.get((run.model_id, run.dataset_id), 0)
        judge.append(
            {
                "id": run.pk,
                "judge": run.judge.name,
                "model": run.model.name,
                "dataset": f"{run.dataset.name} v{run.dataset.version}",
                "status": run.status,
                "status_label": status_label(run.status),
                "source": run.source,
                "total": total,
                "done": done,
                "errors": errors,
                "progress": _share(done, total),
                "error_share": _share(errors, done),
                "alert": rules.run_error_share(done=done, errors=errors).alert,
                "requests": int(run.stats.get("calls", 0)),
                "cached": int(run.stats.get("cached", 0)),
                "cost": float(run.stats.get("cost", 0.0)),
                "created_at": run.created_at.isoformat(),
                "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            }
        )
    generation = []
    for run in GenerationRun.objects.select_related("model", "dataset").order_by(
        RUNNING_FIRST, "-created_at", "-id"
    )[:limit]:
        total, done = int(run.stats.get("total", 0)), int(run.stats.get("done", 0))
        generation.append(
            {
                "id": run.pk,
                "model": run.model.name,
                "dataset": f"{run.dataset.name} v{run.dataset.version}",
                "mode": run.mode,
                "mode_label": status_label(run.mode),
                "status": run.status,
                "status_label": status_label(run.status),
                "total": total,
                "done": done,
                "errors": int(run.stats.get("errors", 0)),
                "progress": _share(done, total),
                "requests": int(run.stats.get("calls", 0)),
                "cost": float(run.stats.get("cost", 0.0)),
                "error": run.stats.get("error", ""),
                "created_at": run.created_at.isoformat(),
                "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            }
        )
    return {"judge_runs": judge, "generation_runs": generation, "at": timezone.now().isoformat()}


# ---- what the routing form offers --------------------------------------------------------


def route_choices(*, study: Study) -> list[Expert]:
    """Active experts of the study, for the manual-routing form (the service checks the rest)."""
    return list(study.pool.experts.filter(is_active=True).select_related("user"))


def study_get_for_admin(*, name: str) -> Study | None:
    return Study.objects.select_related("pool", "dataset").filter(name=name).first()


def unit_in_study(*, study: Study, token: str):
    """The study's unit with this token, or None (never a unit of another study)."""
    return study.pool.units.filter(token=token).first()


def expert_in_study(*, study: Study, expert_id) -> Expert | None:
    try:
        key = int(expert_id)
    except (TypeError, ValueError):
        return None
    return Expert.objects.filter(pk=key, pools=study.pool).select_related("user").first()
