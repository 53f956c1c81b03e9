"""Leaderboard reads: verdicts from the database, scores from the pure scoring engine."""

from dataclasses import dataclass, field

import numpy as np
from django.db.models import Case as CaseWhen
from django.db.models import Count, F, IntegerField, Value, When

from benchmark.models import Case, Dataset, JudgeRun, RubricItem, Verdict
from benchmark.scoring import (
    ModelScores,
    RubricLayout,
    ScoringMode,
    hard_decay,
    model_aggregate,
    overall_ci95,
)

SPLITS = ("all", "normal", "hard")


class LeaderboardError(ValueError):
    """The leaderboard cannot be built as asked (no such dataset or judge)."""


@dataclass
class ModelEntry:
    model: str
    run: JudgeRun
    scores: ModelScores
    split_overall: dict[str, float | None] = field(default_factory=dict)
    # Verdicts of the run made on an older version of their criterion than the current one.
    rubric_changes: dict[str, int] = field(default_factory=lambda: dict(NO_RUBRIC_CHANGES))

    def as_dict(self) -> dict:
        scores = self.scores
        return {
            "model": self.model,
            "overall": scores.overall,
            "ci95": list(scores.ci95) if scores.ci95 else None,
            "categories": scores.categories,
            "abilities": scores.abilities,
            "coverage": {"scored": scores.scored, "total": scores.total},
            "catastrophic_cases": scores.catastrophic_cases,
            "normal": self.split_overall.get("normal"),
            "hard": self.split_overall.get("hard"),
            "hard_decay": hard_decay(
                normal=self.split_overall.get("normal"), hard=self.split_overall.get("hard")
            ),
            "rubric_changes": self.rubric_changes,
            "judge_run": {
                "id": self.run.pk,
                "judge": self.run.judge.name,
                "source": self.run.source,
                "status": self.run.status,
                **self.run.stats,
            },
        }


@dataclass
class Leaderboard:
    dataset: Dataset
    split: str
    scoring: str
    judge: str | None
    entries: list[ModelEntry]

    def as_dict(self) -> dict:
        return {
            "dataset": self.dataset.name,
            "dataset_version": self.dataset.version,
            "demo": self.dataset.is_demo,
            "split": self.split,
            "scoring": self.scoring,
            "judge": self.judge,
            "models": [entry.as_dict() for entry in self.entries],
        }


def _latest_runs(*, dataset: Dataset, judge: str | None) -> list[JudgeRun]:
    runs = JudgeRun.objects.filter(dataset=dataset).select_related("judge", "model")
    if judge is not None:
        runs = runs.filter(judge__name=judge)
        if not runs.exists():
            raise LeaderboardError(f"no judge run by {judge!r} on {dataset}")
    # Each model's newest finished run: a run still going (a retry of errors, a forced
    # re-run) or one that stopped halfway does not hide the results it would replace. A model
    # without a finished run shows its newest one, with the coverage it has so far.
    finished_first = CaseWhen(
        When(status=JudgeRun.Status.FINISHED, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    latest: dict[int, JudgeRun] = {}
    for run in runs.order_by(finished_first, "-created_at", "-id"):
        latest.setdefault(run.model_id, run)
    return list(latest.values())


def _layout(*, dataset: Dataset) -> tuple[RubricLayout, np.ndarray, np.ndarray]:
    """The dataset's rubric as a layout, the rubric item ids in layout order, and hard cases."""
    cases = list(
        Case.objects.filter(dataset=dataset).order_by("id").values_list("id", "difficulty")
    )
    case_ids = np.array([case_id for case_id, _ in cases], dtype=np.int64)
    items = RubricItem.objects.filter(case__dataset=dataset).order_by("case_id", "position")
    item_ids, item_cases, abilities, points = zip(
        *items.values_list("id", "case_id", "ability", "points"), strict=True
    ) or ((), (), (), ())
    layout = RubricLayout.from_arrays(
        case_of=np.searchsorted(case_ids, np.array(item_cases, dtype=np.int64)),
        abilities=abilities,
        points=np.array(points, dtype=float),
        cases=len(cases),
    )
    hard = np.array([difficulty == "hard" for _, difficulty in cases], dtype=bool)
    return layout, np.array(item_ids, dtype=np.int64), hard


def leaderboard_compute(
    *,
    dataset: Dataset,
    split: str = "all",
    scoring: ScoringMode = "paper",
    judge: str | None = None,
    with_ci: bool = True,
) -> Leaderboard:
    """Score every model with a judge run on the dataset (its latest run, or the named judge's).

    A case whose verdicts are incomplete or contain an error is unscored and counts only in
    coverage; it is never read as "not met".
    """
    if split not in SPLITS:
        raise LeaderboardError(f"split must be one of {', '.join(SPLITS)}")
    runs = _latest_runs(dataset=dataset, judge=judge)
    layout, item_ids, hard = _layout(dataset=dataset)
    rows = {"all": np.ones_like(hard), "normal": ~hard, "hard": hard}
    states = _verdict_states(runs=runs, item_ids=item_ids)
    older = _older_version_verdicts(runs=runs)
    entries, matrices = [], []
    for run in runs:
        matrix, catastrophic = _score_run(layout=layout, states=states[run.pk], scoring=scoring)
        split_overall = {
            name: model_aggregate(
                matrix=matrix[rows[name]], catastrophic=catastrophic[rows[name]]
            ).overall
            for name in ("normal", "hard")
        }
        chosen = rows[split]
        scores = model_aggregate(matrix=matrix[chosen], catastrophic=catastrophic[chosen])
        matrices.append(matrix[chosen])
        entries.append(
            ModelEntry(
                run.model.name,
                run,
                scores,
                split_overall,
                older.get(run.pk, dict(NO_RUBRIC_CHANGES)),
            )
        )
    if with_ci and entries:
        for entry, interval in zip(entries, overall_ci95(np.stack(matrices)), strict=True):
            entry.scores.ci95 = interval
    entries.sort(key=lambda e: (e.scores.overall is None, -(e.scores.overall or 0), e.model))
    return Leaderboard(dataset, split, scoring, judge, entries)


NO_RUBRIC_CHANGES = {"older_version_verdicts": 0, "criteria": 0}


def _older_version_verdicts(*, runs: list[JudgeRun]) -> dict[int, dict[str, int]]:
    """Per run, its verdicts made on an older version of their criterion than the current
    one (the criterion was edited after the judge saw it), and how many criteria they cover."""
    rows = (
        Verdict.objects.filter(run__in=runs, rubric_version__lt=F("rubric_item__version"))
        .values("run_id")
        .annotate(verdicts=Count("id"), criteria=Count("rubric_item_id", distinct=True))
        .order_by()
    )
    return {
        row["run_id"]: {"older_version_verdicts": row["verdicts"], "criteria": row["criteria"]}
        for row in rows
    }


MISSING, NOT_MET, MET, ERROR = -1, 0, 1, 2
STATE_CODE = {Verdict.State.MET: MET, Verdict.State.NOT_MET: NOT_MET, Verdict.State.ERROR: ERROR}


def _verdict_states(*, runs: list[JudgeRun], item_ids: np.ndarray) -> dict[int, np.ndarray]:
    """Per run, one state code per criterion in layout order (MISSING where no verdict)."""
    order = np.argsort(item_ids)
    states = {}
    for run in runs:
        rows = list(Verdict.objects.filter(run=run).values_list("rubric_item_id", "state"))
        codes = np.full(len(item_ids), MISSING, dtype=np.int8)
        if rows:
            ids, labels = zip(*rows, strict=True)
            position = order[np.searchsorted(item_ids, np.array(ids, dtype=np.int64), sorter=order)]
            codes[position] = np.fromiter((STATE_CODE[s] for s in labels), np.int8, len(labels))
        states[run.pk] = codes
    return states


def _score_run(
    *, layout: RubricLayout, states: np.ndarray, scoring: ScoringMode
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of one run, with NaN rows for cases holding an error or a missing verdict."""
    matrix, catastrophic = layout.score(hits=states == MET, scoring=scoring)
    unusable = (states == MISSING) | (states == ERROR)
    broken = np.bincount(layout.case_of[unusable], minlength=layout.cases) > 0
    matrix[broken] = np.nan
    catastrophic[broken] = False
    return matrix, catastrophic
