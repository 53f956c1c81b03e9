"""Group-sequential monitoring of a study on its dashboard: the current look, its boundary,
each gate condition there, and what stopping now would save.

A study declares ``look_every`` k: look j is taken once j·k cases are complete (every unit of
the case has its gold), on exactly the first j·k cases to complete, so a look's figures do not
move as later cases come in. The conditions are the report's agreement with the gold of each
judge (value and case-clustered 95 % interval, as ``report["judges"][…]["vs_gold"]
["agreement"]``) against the study's gate threshold; ``validation.statistics.sequential``
decides them at the look's Lan–DeMets boundary. Further conditions (the gate's others) plug
in as more ``Condition`` values.
"""

import hashlib
from collections import defaultdict
from dataclasses import astuple, dataclass
from decimal import Decimal

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Max, Q
from django.utils import timezone

from annotation.selectors.pay import CENT, pay_earnings
from validation.models import GoldLabel, Study, StudyUnit
from validation.report.compute import figure
from validation.report.data import CATEGORIES, StudyData
from validation.report.selectors import study_report_data
from validation.selectors import study_units_with_ratings
from validation.statistics import BootstrapSettings, pairwise_agreement
from validation.statistics.sequential import (
    Condition,
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


@dataclass(frozen=True)
class StudyMonitoring:
    look_every: int
    monitor: Monitor
    saving: Saving
    stoppable: bool  # the study is open and has taken a look

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


def look_conditions(
    *, data: StudyData, cases: list[str], threshold: float, bootstrap: BootstrapSettings
) -> list[Condition]:
    """Each judge's agreement with the gold on the look's ``cases`` against ``threshold``."""
    in_look = np.isin(np.asarray(data.case_keys, dtype=object)[data.case], cases)
    cases_in_look, clusters = np.unique(data.case[in_look], return_inverse=True)
    conditions = []
    for judge in data.judges:
        result = pairwise_agreement(
            reference=data.gold[in_look],
            predicted=judge.codes[in_look],
            categories=CATEGORIES,
            clusters=clusters,
            bootstrap=bootstrap,
        )
        agreement = figure(result.agreement)
        conditions.append(
            condition_from_interval(
                name=judge.name,
                value=agreement["value"],
                low=agreement.get("low"),
                high=agreement.get("high"),
                threshold=threshold,
                limits=(0.0, 1.0),
                df=max(1, cases_in_look.size - 1),
            )
        )
    return conditions


# A look's figures change only with its cases, the study's gold, its judge runs or threshold:
# all in the key, so a cached look never goes stale; the timeout only bounds memory.
CACHE_SECONDS = 3600


def _conditions_cached(
    *, study: Study, cases: list[str], bootstrap: BootstrapSettings
) -> list[Condition]:
    """``look_conditions`` for the look's ``cases``, computed once per state of the study:
    the page is shown often, the bootstrap of every judge costs about a second."""
    state = (
        study.pk,
        cases,
        GoldLabel.objects.filter(study_unit__study=study).count(),
        sorted(study.judge_runs.values_list("pk", flat=True)),
        study.gate_threshold,
        astuple(bootstrap),
    )
    key = "dashboard:monitor:" + hashlib.sha256(repr(state).encode()).hexdigest()
    conditions = cache.get(key)
    if conditions is None:
        conditions = look_conditions(
            data=study_report_data(study=study),
            cases=cases,
            threshold=study.gate_threshold,
            bootstrap=bootstrap,
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
    conditions = []
    if taken:
        conditions = _conditions_cached(
            study=study,
            cases=cases[: round(taken[-1] * planned)],
            bootstrap=bootstrap or BootstrapSettings(),
        )
    monitor = study_monitor(
        conditions=conditions, completed=len(cases), planned=planned, every=every
    )
    return StudyMonitoring(
        look_every=every,
        monitor=monitor,
        saving=_saving(study),
        stoppable=study.pool.status == "open" and monitor.look > 0,
    )
