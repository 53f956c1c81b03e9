"""Leaderboard reads: verdicts from the database, scores from the pure scoring engine."""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Aggregate, Count, F, TextField

from benchmark.leaderboard_rules import (
    CHOSEN_BY_MOST_MODELS,
    CHOSEN_BY_REQUEST,
    DEFAULT_MIN_COVERAGE,
    JudgeCoverage,
    coverage_share,
    judge_order,
    judge_settings,
    rows_rank,
)
from benchmark.models import Case, Dataset, JudgeRun, RubricItem, Verdict
from benchmark.scoring import (
    CaseScore,
    ModelScores,
    RubricLayout,
    ScoringMode,
    case_scores,
    hard_decay,
    model_aggregate,
    overall_ci95,
)
from benchmark.selectors.runs import judge_run_record, runs_latest

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
    rank: int | None = None  # None: shown, but under the coverage threshold (or unscored)

    def as_dict(self) -> dict:
        scores = self.scores
        record = judge_run_record(run=self.run)
        return {
            "model": self.model,
            "rank": self.rank,
            "ranked": self.rank is not None,
            "judge": self.run.judge.name,
            "overall": scores.overall,
            "ci95": list(scores.ci95) if scores.ci95 else None,
            "categories": scores.categories,
            "abilities": scores.abilities,
            "coverage": {"scored": scores.scored, "total": scores.total},
            "coverage_share": coverage_share(scored=scores.scored, total=scores.total),
            "catastrophic_cases": scores.catastrophic_cases,
            "normal": self.split_overall.get("normal"),
            "hard": self.split_overall.get("hard"),
            "hard_decay": hard_decay(
                normal=self.split_overall.get("normal"), hard=self.split_overall.get("hard")
            ),
            "rubric_changes": self.rubric_changes,
            "judge_settings": judge_settings(record, source=self.run.source),
            "judge_run": {
                "id": self.run.pk,
                "judge": self.run.judge.name,
                "source": self.run.source,
                "status": self.run.status,
                **record,
            },
        }


@dataclass
class Leaderboard:
    dataset: Dataset
    split: str
    scoring: str
    judge: str | None  # the one judge every row was judged by (None: no judge ran yet)
    entries: list[ModelEntry]
    judge_chosen_by: str | None = None  # CHOSEN_BY_REQUEST or CHOSEN_BY_MOST_MODELS
    min_coverage: float = DEFAULT_MIN_COVERAGE
    judges: list[JudgeCoverage] = field(default_factory=list)  # every judge, best first
    # Models this judge did not judge, with the judges that did: never rows of this board.
    not_shown: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        models = [entry.as_dict() for entry in self.entries]
        return {
            "dataset": self.dataset.name,
            "dataset_version": self.dataset.version,
            "demo": self.dataset.is_demo,
            "split": self.split,
            "scoring": self.scoring,
            "judge": self.judge,
            "judge_chosen_by": self.judge_chosen_by,
            "judges": [
                {"judge": j.judge, "models": j.models, "scored_cases": j.scored_cases}
                for j in self.judges
            ],
            "min_coverage": self.min_coverage,
            "not_shown": self.not_shown,
            "settings_differ": len({m["judge_settings"] for m in models}) > 1,
            "models": models,
        }


def _latest_runs(*, dataset: Dataset, run_ids: Sequence[int] = ()) -> list[JudgeRun]:
    """Per judge and model, the run a leaderboard reads (``runs_latest``), or the run picked
    for that judge and model (``run_ids``: judge runs on the dataset, of one judge)."""
    runs = JudgeRun.objects.filter(dataset=dataset).select_related("judge", "model")
    latest = runs_latest(runs)
    if not run_ids:
        return latest
    picked = {run.pk: run for run in runs.filter(pk__in=list(run_ids))}
    for pk in run_ids:
        if pk not in picked:
            raise LeaderboardError(f"run {pk} is not a judge run on {dataset}")
    if len({run.judge_id for run in picked.values()}) > 1:
        raise LeaderboardError("the runs picked are of different judges: rows never mix judges")
    chosen = {(run.judge_id, run.model_id): run for run in picked.values()}
    return [chosen.pop((run.judge_id, run.model_id), run) for run in latest] + list(chosen.values())


def _judge_pick(
    *, runs: list[JudgeRun], scored: dict[int, int], judge: str | None, dataset: Dataset
) -> tuple[str | None, str | None, list[JudgeCoverage]]:
    """The judge of the board, why it was chosen, and every judge's coverage (best first)."""
    coverage: dict[str, list[int]] = {}
    for run in runs:
        counts = coverage.setdefault(run.judge.name, [0, 0])
        counts[0] += 1
        counts[1] += scored[run.pk]
    judges = judge_order([JudgeCoverage(name, m, c) for name, (m, c) in coverage.items()])
    if judge is not None:
        if judge not in coverage:
            raise LeaderboardError(f"no judge run by {judge!r} on {dataset}")
        return judge, CHOSEN_BY_REQUEST, judges
    if not judges:
        return None, None, judges
    return judges[0].judge, CHOSEN_BY_MOST_MODELS, judges


def _not_shown(*, runs: list[JudgeRun], judge: str | None) -> list[dict]:
    """Models without a run by ``judge``, each with the judges that ran on it."""
    shown = {run.model.name for run in runs if run.judge.name == judge}
    others: dict[str, set[str]] = {}
    for run in runs:
        if run.model.name not in shown:
            others.setdefault(run.model.name, set()).add(run.judge.name)
    return [{"model": name, "judges": sorted(others[name])} for name in sorted(others)]


def _layout(*, dataset: Dataset) -> tuple[RubricLayout, np.ndarray, np.ndarray, np.ndarray]:
    """The dataset's rubric as a layout, the rubric item ids in layout order, the case ids in
    row order, and which cases are hard."""
    cases = list(
        Case.objects.filter(dataset=dataset).order_by("id").values_list("id", "difficulty")
    )
    case_ids = np.array([case_id for case_id, _ in cases], dtype=np.int64)
    items = RubricItem.objects.filter(case__dataset=dataset).order_by("case_id", "position")
    found = list(items.values_list("id", "case_id", "ability", "points"))
    # A dataset without criteria (nothing imported yet) has an empty layout, not an error.
    item_ids, item_cases, abilities, points = zip(*found, strict=True) if found else ((),) * 4
    layout = RubricLayout.from_arrays(
        case_of=np.searchsorted(case_ids, np.array(item_cases, dtype=np.int64)),
        abilities=abilities,
        points=np.array(points, dtype=float),
        cases=len(cases),
    )
    hard = np.array([difficulty == "hard" for _, difficulty in cases], dtype=bool)
    return layout, np.array(item_ids, dtype=np.int64), case_ids, hard


def leaderboard_compute(
    *,
    dataset: Dataset,
    split: str = "all",
    scoring: ScoringMode = "paper",
    judge: str | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    with_ci: bool = True,
    run_ids: Sequence[int] = (),
) -> Leaderboard:
    """Score every model one judge ran on the dataset: the named judge, else the judge
    covering the most models (``benchmark.leaderboard_rules``); rows never mix judges.

    A case whose verdicts are incomplete or contain an error is unscored and counts only in
    coverage; it is never read as "not met". Rows whose coverage of the split's cases is
    under ``min_coverage`` are shown without a rank, below the ranked ones. ``run_ids`` picks
    runs instead of their model's newest (their judge is the board's, unless one is named).
    """
    if split not in SPLITS:
        raise LeaderboardError(f"split must be one of {', '.join(SPLITS)}")
    if not 0 <= min_coverage <= 1:
        raise LeaderboardError(f"min_coverage must be between 0 and 1, got {min_coverage}")
    every_run = _latest_runs(dataset=dataset, run_ids=run_ids)
    if run_ids:
        picked = next(run.judge.name for run in every_run if run.pk in set(run_ids))
        if judge not in (None, picked):
            raise LeaderboardError(f"the runs picked are {picked}'s, not {judge}'s")
        judge = picked
    layout, item_ids, _, hard = _layout(dataset=dataset)
    rows = {"all": np.ones_like(hard), "normal": ~hard, "hard": hard}
    states = _verdict_states(runs=every_run, item_ids=item_ids)
    scored = {run.pk: int(_scored_cases(layout=layout, states=states[run.pk]).sum())
              for run in every_run}  # fmt: skip
    name, chosen_by, judges = _judge_pick(
        runs=every_run, scored=scored, judge=judge, dataset=dataset
    )
    runs = [run for run in every_run if run.judge.name == name]
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
    order = rows_rank(
        [(e.model, e.scores.overall, e.scores.scored, e.scores.total) for e in entries],
        min_coverage=min_coverage,
    )
    for index, rank in order:
        entries[index].rank = rank
    return Leaderboard(
        dataset,
        split,
        scoring,
        name,
        [entries[index] for index, _ in order],
        judge_chosen_by=chosen_by,
        min_coverage=min_coverage,
        judges=judges,
        not_shown=_not_shown(runs=every_run, judge=name),
    )


@dataclass
class RunScores:
    scoring: ScoringMode
    cases: dict[int, CaseScore | None]  # case id -> its score; None: unscored
    model: ModelScores


def judge_run_scores(*, run: JudgeRun, scoring: ScoringMode = "paper") -> RunScores:
    """One run's scores as the leaderboard computes them: each case of its dataset (None where
    a verdict is an error or missing) and the model's scores over the whole dataset."""
    layout, item_ids, case_ids, _ = _layout(dataset=run.dataset)
    states = _verdict_states(runs=[run], item_ids=item_ids)[run.pk]
    matrix, catastrophic = _score_run(layout=layout, states=states, scoring=scoring)
    scored = _scored_cases(layout=layout, states=states)
    per_case = case_scores(values=matrix, catastrophic=catastrophic)
    return RunScores(
        scoring=scoring,
        cases={
            int(case_id): score if usable else None
            for case_id, score, usable in zip(case_ids, per_case, scored, strict=True)
        },
        model=model_aggregate(matrix=matrix, catastrophic=catastrophic),
    )


@dataclass
class DatasetHits:
    """One judge's verdicts on a dataset, per model, for the rubric analyses (saturation)."""

    judge: str
    question_ids: list[str]  # one per layout row
    layout: RubricLayout
    hits: dict[str, list[bool | None]]  # model -> per criterion in layout order; None: unusable


def dataset_hits(
    *, dataset: Dataset, judge: str | None = None, models: list[str] | None = None
) -> DatasetHits:
    """Per model, the verdicts of the run a leaderboard reads, under the judge it would pick
    (the named one, else the judge covering the most models); ``models`` narrows them, and a
    listed model that judge did not run on is refused (``LeaderboardError``)."""
    every_run = _latest_runs(dataset=dataset)
    layout, item_ids, case_ids, _ = _layout(dataset=dataset)
    states = _verdict_states(runs=every_run, item_ids=item_ids)
    scored = {run.pk: int(_scored_cases(layout=layout, states=states[run.pk]).sum())
              for run in every_run}  # fmt: skip
    name, _, _ = _judge_pick(runs=every_run, scored=scored, judge=judge, dataset=dataset)
    if name is None:
        raise LeaderboardError(f"no judge run on {dataset}")
    runs = {run.model.name: run for run in every_run if run.judge.name == name}
    unknown = [model for model in models or () if model not in runs]
    if unknown:
        raise LeaderboardError(
            f"judge {name!r} did not judge {', '.join(map(repr, unknown))} on {dataset}"
        )
    question_ids = dict(Case.objects.filter(dataset=dataset).values_list("id", "question_id"))
    return DatasetHits(
        judge=name,
        question_ids=[question_ids[int(case_id)] for case_id in case_ids],
        layout=layout,
        hits={model: _hits(states[runs[model].pk]) for model in (models or sorted(runs))},
    )


def _hits(codes: np.ndarray) -> list[bool | None]:
    return [None if code in (MISSING, ERROR) else code == MET for code in codes.tolist()]


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


class _Ids(Aggregate):
    """The grouped rows' values as one comma-separated text (``STRING_AGG``; ``GROUP_CONCAT`` on
    SQLite): a run's verdicts come as three rows, one per state, that numpy parses, instead of
    one Python tuple per verdict."""

    function = "STRING_AGG"
    template = "%(function)s(CAST(%(expressions)s AS TEXT), ',')"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, function="GROUP_CONCAT", **extra)


def _verdict_states(*, runs: list[JudgeRun], item_ids: np.ndarray) -> dict[int, np.ndarray]:
    """Per run, one state code per criterion in layout order (MISSING where no verdict)."""
    order = np.argsort(item_ids)
    states = {run.pk: np.full(len(item_ids), MISSING, dtype=np.int8) for run in runs}
    groups = (
        Verdict.objects.filter(run__in=runs)
        .values_list("run_id", "state")
        .annotate(ids=_Ids("rubric_item_id"))
        .order_by()
    )
    for run_id, state, ids in groups:
        found = np.fromstring(ids, dtype=np.int64, sep=",")
        states[run_id][order[np.searchsorted(item_ids, found, sorter=order)]] = STATE_CODE[state]
    return states


def _scored_cases(*, layout: RubricLayout, states: np.ndarray) -> np.ndarray:
    """Per case, whether every criterion has a met / not met verdict (no error, none missing)."""
    unusable = (states == MISSING) | (states == ERROR)
    return np.bincount(layout.case_of[unusable], minlength=layout.cases) == 0


def _score_run(
    *, layout: RubricLayout, states: np.ndarray, scoring: ScoringMode
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of one run, with NaN rows for cases holding an error or a missing verdict."""
    matrix, catastrophic = layout.score(hits=states == MET, scoring=scoring)
    broken = ~_scored_cases(layout=layout, states=states)
    matrix[broken] = np.nan
    catastrophic[broken] = False
    return matrix, catastrophic
