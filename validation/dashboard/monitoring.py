"""Group-sequential monitoring of a study on its dashboard: the current look, its boundary,
every gate condition of every judge there, and what stopping now would save.

A study declares ``look_every`` k: look j is taken once j·k cases are complete (every unit of
the case has its gold), on exactly the first j·k cases to complete, so a look's figures do not
move as later cases come in. At a look the study is restricted to those cases
(``report.data.study_data_for_cases``) and each judge's gate is computed on it by the
report's own ``judge_gate_compute`` under the study's gate configuration: agreement with the
gold, non-inferiority to the experts, catastrophic recall, score bias per model. Each of
those conditions becomes a sequential ``Condition`` (its value and 95 % interval, the gate's
threshold and direction) that ``validation.statistics.sequential`` decides at the look's
Lan–DeMets boundary; one the gate itself holds as not enough data (too few gold catastrophic
hits, no model scored, an undefined figure) stays not enough data at any boundary.

The study may stop early once every condition of every judge is decided (passed or failed)
at the boundary: each judge's gate answer is then known, whether the judges agree or one
passed while another failed. Futility (a condition unlikely to be decided even at the
planned size) is a flag for the admin, never a stop: it is raised in most studies whose judge
sits near a threshold (docs/benchmarks.md).
"""

import hashlib
from collections import defaultdict
from dataclasses import astuple, dataclass
from decimal import Decimal

from django.core.cache import cache
from django.db.models import Count, Max, Q
from django.utils import timezone

from annotation.selectors.pay import CENT, pay_earnings
from validation import gate
from validation.models import Study, StudyUnit
from validation.report.compute import judge_gate_compute
from validation.report.data import StudyData, study_data_for_cases
from validation.report.selectors import study_report_data
from validation.selectors import study_units_with_ratings
from validation.selectors.report import study_report_fingerprint
from validation.statistics import BootstrapSettings
from validation.statistics.sequential import (
    Condition,
    ConditionStatus,
    Monitor,
    condition_from_interval,
    look_fractions,
    study_monitor,
)

_DONE = (StudyUnit.State.GOLD, StudyUnit.State.ADJUDICATED)
_SETTLED = (*_DONE, StudyUnit.State.AWAITING, StudyUnit.State.DROPPED)


@dataclass(frozen=True)
class Saving:
    """What stopping now would spare: the units still short of their ratings, the ratings
    they wait for, and their pay at the mean the ledger paid per rating in this study."""

    units: int
    ratings: int
    # (currency, amount) per currency the study paid in; empty before any pay.
    pay: tuple[tuple[str, Decimal], ...]


# The range each gate condition's figure can take: its intervals are shown within it.
LIMITS = {
    gate.AGREEMENT: (0.0, 1.0),
    gate.NONINFERIORITY: (-1.0, 1.0),
    gate.CATASTROPHIC_RECALL: (0.0, 1.0),
    gate.SCORE_BIAS: (-100.0, 100.0),
}


@dataclass(frozen=True)
class LookCondition:
    """One gate condition of one judge on the look's cases: the gate's own figures at 95 %
    (``condition``) and the sequential condition to decide at the look's boundary."""

    judge: str
    condition: gate.Condition
    sequential: Condition


@dataclass(frozen=True)
class LookRow:
    """A condition as the dashboard lists it: the judge, the gate's condition, its status at
    the look."""

    judge: str
    condition: gate.Condition
    look: ConditionStatus


@dataclass(frozen=True)
class StudyMonitoring:
    look_every: int
    monitor: Monitor
    rows: tuple[LookRow, ...]  # monitor.conditions with their judge and gate condition
    saving: Saving
    # Open, a look taken, and every condition of every judge decided at its boundary.
    stoppable: bool

    @property
    def planned(self) -> int:
        return self.monitor.planned

    @property
    def completed(self) -> int:
        return self.monitor.completed


def completed_cases(*, study: Study) -> list[str]:
    """Question ids of the study's complete cases, in the order they completed."""
    rows = (
        StudyUnit.objects.filter(study=study)
        .exclude(state=StudyUnit.State.DROPPED)
        .values("case__question_id")
        .annotate(
            units=Count("pk", distinct=True),
            done=Count("pk", filter=Q(state__in=_DONE), distinct=True),
            at=Max("gold__created_at"),
        )
        .order_by()
    )
    done = [(r["at"], r["case__question_id"]) for r in rows if r["units"] == r["done"]]
    return [key for _, key in sorted(done)]


def _sequential(judge: str, condition: gate.Condition, df: int) -> Condition:
    name = " · ".join(filter(None, (judge, condition.name, condition.subject)))
    # Held back by the gate itself (too few catastrophic hits, no model scored, an undefined
    # figure): no data to decide on at any boundary, so it stays not enough data.
    held = condition.status == gate.NOT_ENOUGH_DATA and condition.reason is not None
    return condition_from_interval(
        name=name,
        value=None if held else condition.value,
        low=condition.low,
        high=condition.high,
        threshold=condition.threshold,
        direction=condition.direction,
        limits=LIMITS[condition.name],
        df=df,
    )


def look_conditions(
    *, data: StudyData, cases: list[str], bootstrap: BootstrapSettings
) -> list[LookCondition]:
    """Every gate condition of every judge on the look's ``cases``, under the study's gate
    (``judge_gate_compute`` on the study restricted to those cases: the report's figures)."""
    look = study_data_for_cases(data=data, cases=cases)
    df = max(1, look.n_cases - 1)
    conditions = []
    for judge in look.judges:
        _, decision = judge_gate_compute(data=look, judge=judge, bootstrap=bootstrap)
        conditions += [
            LookCondition(judge.name, c, _sequential(judge.name, c, df))
            for c in decision.conditions
        ]
    return conditions


# A look's figures change only with what the study report reads (labels, gold, verdicts, runs,
# every field of the study, the gate's included, and the code) and its cases: all in the key,
# so a cached look never goes stale; the timeout only bounds memory.
CACHE_SECONDS = 3600


def _conditions_cached(
    *, study: Study, cases: list[str], bootstrap: BootstrapSettings
) -> list[LookCondition]:
    """``look_conditions`` for the look's ``cases``, computed once per state of the study:
    the page is shown often, the gate of every judge costs seconds."""
    state = (study_report_fingerprint(study=study), cases, astuple(bootstrap))
    key = "dashboard:monitor:" + hashlib.sha256(repr(state).encode()).hexdigest()
    conditions = cache.get(key)
    if conditions is None:
        conditions = look_conditions(
            data=study_report_data(study=study), cases=cases, bootstrap=bootstrap
        )
        cache.set(key, conditions, CACHE_SECONDS)
    return conditions


def _saving(study: Study) -> Saving:
    raters = study.pool.raters_per_unit
    short = [
        raters - min(ratings, raters)
        for ratings in study_units_with_ratings(study=study)
        .exclude(state__in=_SETTLED)
        .values_list("ratings", flat=True)
    ]
    ratings = sum(short)
    earned: dict[str, Decimal] = defaultdict(Decimal)
    paid: dict[str, int] = defaultdict(int)
    for row in pay_earnings(start=study.created_at.date(), end=timezone.localdate()):
        if row.study == study.pool.name:
            earned[row.currency] += row.earned
            paid[row.currency] += row.units
    pay = tuple(
        (currency, (earned[currency] / paid[currency] * ratings).quantize(CENT))
        for currency in sorted(earned)
        if paid[currency]
    )
    return Saving(units=sum(1 for n in short if n), ratings=ratings, pay=pay)


def study_monitoring(
    *, study: Study, bootstrap: BootstrapSettings | None = None
) -> StudyMonitoring | None:
    """The study's gate at its current look; None when the study looks only at its close."""
    if not study.look_every:
        return None
    every, planned = study.look_every, study.planned_cases
    cases = completed_cases(study=study)
    taken = look_fractions(completed=len(cases), planned=planned, every=every)
    conditions: list[LookCondition] = []
    if taken:
        conditions = _conditions_cached(
            study=study,
            cases=cases[: round(taken[-1] * planned)],
            bootstrap=bootstrap or BootstrapSettings(),
        )
    monitor = study_monitor(
        conditions=[c.sequential for c in conditions],
        completed=len(cases),
        planned=planned,
        every=every,
    )
    rows = tuple(
        LookRow(c.judge, c.condition, status)
        for c, status in zip(conditions, monitor.conditions, strict=True)
    )
    return StudyMonitoring(
        look_every=every,
        monitor=monitor,
        rows=rows,
        saving=_saving(study),
        stoppable=study.pool.status == "open" and monitor.look > 0 and monitor.decided,
    )
