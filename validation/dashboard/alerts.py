"""The dashboard's risk alerts: the rules of ``rules`` applied to figures the database counts."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count
from django.utils import timezone

from annotation.models import Expert, Pool
from annotation.quality import QUALITY_MIN_UNITS, Agreement
from annotation.selectors import assignments_live, experts_by_id, rating_assignments_lapsed, review
from annotation.selectors.quality import peer_agreement_by
from benchmark.models import JudgeRun
from benchmark.selectors.runs import judge_run_successors, verdict_counts_of
from validation.dashboard import rules
from validation.dashboard.selectors import StudyProgress
from validation.models import Study, StudyUnit


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


@dataclass(frozen=True)
class UnreadFlag:
    study: Study
    flag: review.UnreadFlag


@dataclass
class Alerts:
    weak_experts: list[WeakExpert] = field(default_factory=list)
    expiring_units: list[ExpiringUnit] = field(default_factory=list)
    late_studies: list[LateStudy] = field(default_factory=list)
    failing_runs: list[FailingRun] = field(default_factory=list)
    unread_flags: list[UnreadFlag] = field(default_factory=list)

    def __len__(self) -> int:
        return (
            len(self.weak_experts)
            + len(self.expiring_units)
            + len(self.late_studies)
            + len(self.failing_runs)
            + len(self.unread_flags)
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
    experts = experts_by_id(ids=[o.key for _, o, _ in found])
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
    live = assignments_live(now=now).filter(pool_id__in=list(by_pool)).values("unit_id")
    rows = (
        rating_assignments_lapsed(now=now)
        .filter(pool_id__in=list(by_pool), unit_id__in=waiting)
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


def _failing_runs(runs: list[JudgeRun]) -> list[FailingRun]:
    counts = verdict_counts_of(runs=runs)
    found = []
    for run in runs:
        done, errors = counts.get(run.pk, (0, 0))
        verdict = rules.run_error_share(done=done, errors=errors)
        if verdict.alert:
            found.append(FailingRun(run=run, done=done, errors=errors, share=verdict.share))
    if found:  # a run already judged again (or replaced) needs nothing more
        replaced = judge_run_successors(run_ids=[f.run.pk for f in found])
        found = [f for f in found if f.run.pk not in replaced]
    return sorted(found, key=lambda f: -f.share)


def _unread_flags(studies: list[Study]) -> list[UnreadFlag]:
    by_pool = {s.pool_id: s for s in studies}
    if not by_pool:
        return []
    return [
        UnreadFlag(study=by_pool[f.pool_id], flag=f)
        for f in review.flags_unread(pool_ids=list(by_pool))
    ]


def alerts_collect(
    *,
    studies: list[Study],
    progress: list[StudyProgress],
    runs: list[JudgeRun] | None = None,
    now: datetime | None = None,
    agreement: dict[tuple[int, int], Agreement] | None = None,
) -> Alerts:
    """The risks worth an admin's action, each with what is needed to act on it.

    Only open studies are looked at (a draft has no work yet, a closed one no more), but
    for flags no senior can read, which raters file on closed studies too. Judge runs are
    those given (the recent ones on the overview, the study's on a study page).
    ``agreement`` is the (pool, expert) figures when the caller has them already.
    """
    now = now or timezone.now()
    open_studies = [s for s in studies if s.pool.status == Pool.Status.OPEN]
    return Alerts(
        weak_experts=_weak_experts(open_studies, agreement),
        expiring_units=_expiring_units(open_studies, now=now),
        late_studies=[LateStudy(progress=p) for p in progress if p.pace.will_miss],
        failing_runs=_failing_runs(runs or []),
        unread_flags=_unread_flags([s for s in studies if s.pool.status != Pool.Status.DRAFT]),
    )
