"""The judge's validation badge the leaderboard shows: from the newest closed study that
covered a dataset with a given judge.

The badge computes the full gate with the report's own gathering of the study's items, labels,
gold and verdicts (``study_items_data``, which ``study_report_data`` extends with the sections
the badge does not show) and its own gate computation (``report.compute.judge_gate_final``: at
a sequential design's final boundary when the study ran one, deciding through
``validation.gate.gate_decide``) under the same bootstrap settings, so the badge, the CLI
leaderboard and the report never disagree. The page keeps a badge as data
(``validation.services.stored.judge_badge_keep``) under the study's report fingerprint, which a
senior's adjudication writing gold after the close changes.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from benchmark.models import Dataset
from benchmark.selectors.leaderboard_options import leaderboard_judges
from validation.models import Study, StudyUnit
from validation.report.compute import figure, judge_gate_final
from validation.report.selectors import study_items_data
from validation.statistics import BootstrapSettings

# Unit states whose gold still waits for a senior expert (the gold, and so the badge, can move).
WAITING_FOR_SENIOR = (StudyUnit.State.INCOMPLETE.value, StudyUnit.State.AWAITING.value)


@dataclass(frozen=True)
class JudgeBadge:
    judge: str
    study: str
    closed_at: datetime
    units: int
    threshold: float  # of the agreement condition
    # figure(): value, n (criteria with gold and a verdict), low/high when there is an interval
    agreement: dict[str, Any]
    # validation.gate: passed / failed / not_enough_data, and each condition's figures
    decision: str
    conditions: tuple[dict[str, Any], ...]
    # Units of the closed study still waiting for a senior's adjudication.
    awaiting_adjudication: int
    # The interval the gate was decided on (the report's ``gate.decided_at``): a sequential
    # design's final boundary, or the plain 95 % one. None in a badge kept before it existed.
    decided_at: dict[str, Any] | None = None

    def figures(self) -> dict[str, Any]:
        """What the badge computed (the rest is the study's), as JSON values."""
        return {
            "units": self.units,
            "threshold": self.threshold,
            "agreement": self.agreement,
            "decision": self.decision,
            "conditions": list(self.conditions),
            "awaiting_adjudication": self.awaiting_adjudication,
            "decided_at": self.decided_at,
        }

    @classmethod
    def from_figures(cls, *, study: Study, judge: str, figures: dict[str, Any]) -> "JudgeBadge":
        return cls(
            judge=judge,
            study=study.name,
            closed_at=study.closed_at,
            **{**figures, "conditions": tuple(figures["conditions"])},
        )


def study_latest_closed_for_judge(*, dataset: Dataset, judge: str) -> Study | None:
    """The newest closed study on ``dataset`` that checked a run of the judge named ``judge``."""
    return (
        Study.objects.filter(
            dataset=dataset, closed_at__isnull=False, judge_runs__judge__name=judge
        )
        .select_related("pool", "dataset")
        .order_by("-closed_at", "-id")
        .distinct()
        .first()
    )


def judge_badge_get(
    *, dataset: Dataset, judge: str, bootstrap: BootstrapSettings | None = None
) -> JudgeBadge | None:
    """The judge's item-level agreement with the experts' gold, its interval and the study's
    gate, from the newest closed study covering ``dataset`` and ``judge``; None if none did."""
    study = study_latest_closed_for_judge(dataset=dataset, judge=judge)
    if study is None:
        return None
    return judge_badge_for_study(study=study, judge=judge, bootstrap=bootstrap)


def judge_badge_for_study(
    *, study: Study, judge: str, bootstrap: BootstrapSettings | None = None
) -> JudgeBadge | None:
    """The badge of ``judge`` from one closed study (see judge_badge_get)."""
    data = study_items_data(study=study)
    labels = next((j for j in data.judges if j.name == judge), None)
    if labels is None:  # the study's runs of this judge cover none of its units
        return None
    figures, gate, decided = judge_gate_final(
        data=data, judge=labels, bootstrap=bootstrap or BootstrapSettings()
    )
    return JudgeBadge(
        judge=judge,
        study=study.name,
        closed_at=study.closed_at,
        units=sum(data.unit_states.values()),
        threshold=gate.config.agreement_min,
        agreement=figure(figures.against_gold.agreement),
        decision=gate.decision,
        conditions=tuple(c.as_dict() for c in gate.conditions),
        awaiting_adjudication=sum(data.unit_states.get(state, 0) for state in WAITING_FOR_SENIOR),
        decided_at=decided,
    )


def leaderboard_gate(
    *, dataset: Dataset, bootstrap: BootstrapSettings | None = None
) -> dict[str, Any] | None:
    """The badge of every judge that ran on ``dataset``, for the command line's leaderboard:
    the same study, figures and decision the web page shows (``judge_badge_get``); None when
    no closed study validated any of them."""
    names = leaderboard_judges(dataset=dataset)
    badges = [
        badge
        for name in names
        if (badge := judge_badge_get(dataset=dataset, judge=name, bootstrap=bootstrap))
    ]
    if not badges:
        return None
    return {
        "judges": [
            {
                "judge": b.judge,
                "study": b.study,
                "closed_at": b.closed_at.isoformat(timespec="minutes"),
                "threshold": b.threshold,
                "agreement": b.agreement,
                "decision": b.decision,
                "conditions": list(b.conditions),
                "decided_at": b.decided_at,
            }
            for b in badges
        ]
    }
