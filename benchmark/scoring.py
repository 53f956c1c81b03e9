"""The HeartBench scoring engine (paper eq. 1), with no database access.

Two modes:

* ``paper`` (default): a hit on any catastrophic criterion, whatever its points, zeroes every
  ability score of the case.
* ``upstream``: bit-for-bit the released scorer, which fires the rule only for a catastrophic
  criterion with positive points (none exist in the released data).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from benchmark.resampling import cluster_counts, quantiles
from benchmark.taxonomy import CATEGORIES, CATEGORY_OF, SCORED_CODES

ScoringMode = Literal["paper", "upstream"]
SCORING_MODES: tuple[str, ...] = ("paper", "upstream")
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20251226
LEVEL = 0.95


@dataclass(frozen=True)
class Criterion:
    ability: str
    points: float | None


@dataclass(frozen=True)
class CaseScore:
    abilities: dict[str, float]
    catastrophic: bool

    @property
    def score(self) -> float:
        values = list(self.abilities.values())
        return sum(values) / len(values) if values else 0.0


COLUMN = {code: j for j, code in enumerate(SCORED_CODES)}


@dataclass(frozen=True)
class RubricLayout:
    """The criteria of many cases flattened into arrays, so that a model's hits on every case
    are scored at once. Rows are cases, columns the 15 abilities in ``SCORED_CODES`` order."""

    case_of: np.ndarray  # criterion -> case row
    column_of: np.ndarray  # criterion -> ability column, -1 for catastrophic criteria
    points: np.ndarray
    minimum: np.ndarray  # cases x abilities: sum of negative points
    maximum: np.ndarray  # cases x abilities: sum of positive points
    present: np.ndarray  # cases x abilities: the case has a criterion of that ability

    @classmethod
    def build(cls, cases: Sequence[Sequence[Criterion]]) -> "RubricLayout":
        flat = [(row, c) for row, criteria in enumerate(cases) for c in criteria]
        return cls.from_arrays(
            case_of=np.array([row for row, _ in flat], dtype=np.int64),
            abilities=[c.ability for _, c in flat],
            points=np.array([float(c.points or 0) for _, c in flat]),
            cases=len(cases),
        )

    @classmethod
    def from_arrays(
        cls, *, case_of: np.ndarray, abilities: Sequence[str], points: np.ndarray, cases: int
    ) -> "RubricLayout":
        """From one entry per criterion: its case row, ability code and points (NaN or 0 for
        none), grouped by case."""
        column_of = np.fromiter((COLUMN.get(a, -1) for a in abilities), np.int64, len(abilities))
        points = np.nan_to_num(np.asarray(points, dtype=float))
        case_of = np.asarray(case_of, dtype=np.int64)
        shape = (cases, len(SCORED_CODES))
        scored = column_of >= 0
        cell = case_of[scored] * shape[1] + column_of[scored]
        size = shape[0] * shape[1]

        def per_cell(weights: np.ndarray) -> np.ndarray:
            return np.bincount(cell, weights=weights, minlength=size).reshape(shape)

        return cls(
            case_of=case_of,
            column_of=column_of,
            points=points,
            minimum=per_cell(np.minimum(points[scored], 0)),
            maximum=per_cell(np.maximum(points[scored], 0)),
            present=per_cell(np.ones(int(scored.sum()))) > 0,
        )

    @property
    def cases(self) -> int:
        return self.present.shape[0]

    def score(
        self, *, hits: np.ndarray, scoring: ScoringMode = "paper"
    ) -> tuple[np.ndarray, np.ndarray]:
        """S for every case and ability (NaN where absent) and which cases failed catastrophically.

        ``hits`` holds one boolean per criterion, in layout order.
        """
        hits = np.asarray(hits, dtype=bool)
        if hits.shape != self.points.shape:
            raise ValueError(f"{hits.size} verdicts for {self.points.size} criteria")
        catastrophic_item = self.column_of < 0
        fires = hits & catastrophic_item
        if scoring == "upstream":
            fires &= self.points > 0
        catastrophic = np.bincount(self.case_of[fires], minlength=self.cases) > 0
        scored = ~catastrophic_item
        columns = self.present.shape[1]
        raw = np.bincount(
            self.case_of[scored] * columns + self.column_of[scored],
            weights=np.where(hits[scored], self.points[scored], 0.0),
            minlength=self.present.size,
        ).reshape(self.present.shape)
        span = self.maximum - self.minimum
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.log(raw - self.minimum + 1.0) / np.log(span + 1.0) * 100
        values = np.where(span > 0, values, 0.0)
        values[catastrophic] = 0.0
        values[~self.present] = np.nan
        return values, catastrophic


def case_score(
    *, criteria: Sequence[Criterion], hits: Sequence[bool], scoring: ScoringMode = "paper"
) -> CaseScore:
    """Score one response against its case's rubric; ``hits`` follows ``criteria`` order."""
    if len(criteria) != len(hits):
        raise ValueError(f"{len(hits)} verdicts for {len(criteria)} criteria")
    values, catastrophic = RubricLayout.build([criteria]).score(hits=hits, scoring=scoring)
    return case_scores(values=values, catastrophic=catastrophic)[0]


def case_scores(*, values: np.ndarray, catastrophic: np.ndarray) -> list[CaseScore]:
    """One CaseScore per row of ``RubricLayout.score``'s output (abilities that are NaN, absent
    from the case, are left out)."""
    return [
        CaseScore(
            abilities={
                code: float(row[j]) for j, code in enumerate(SCORED_CODES) if not np.isnan(row[j])
            },
            catastrophic=bool(failed),
        )
        for row, failed in zip(values, catastrophic, strict=True)
    ]


@dataclass
class ModelScores:
    abilities: dict[str, float]
    categories: dict[str, float]
    overall: float | None
    scored: int
    total: int
    catastrophic_cases: int
    ci95: tuple[float, float] | None = None


def _ability_means(weights: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Weighted mean over cases of each ability (models x resamples x abilities); NaN where no
    weighted case holds it. ``columns`` is cases x models x (values, then presence) per ability:
    one matrix product for every model, as BLAS does best (a product per model was 4-10x
    slower, more so with threads on a busy machine)."""
    cases, models, width = columns.shape
    product = (weights @ columns.reshape(cases, -1)).reshape(len(weights), models, width)
    sums, counts = np.split(product.transpose(1, 0, 2), 2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)


def _nanmean_last(values: np.ndarray) -> np.ndarray:
    present = ~np.isnan(values)
    counts = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, np.where(present, values, 0).sum(axis=-1) / counts, np.nan)


def overall_ci95(
    matrices: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> list[tuple[float, float] | None]:
    """Case-resampling percentile bootstrap of the overall score of several models at once.

    ``matrices`` is models x cases x abilities over the same cases (NaN where a case is unscored
    or lacks the ability); every resample draws the same cases for all models. A model with
    fewer than two scored cases gets None.
    """
    matrices = np.asarray(matrices, dtype=float)
    models, n, _ = matrices.shape
    scored = (~np.isnan(matrices)).any(axis=2).sum(axis=1) >= 2
    intervals: list[tuple[float, float] | None] = [None] * models
    if n < 2 or not scored.any():
        return intervals
    chosen = matrices[scored]
    present = (~np.isnan(chosen)).astype(float)
    columns = np.concatenate([np.nan_to_num(chosen), present], axis=-1).transpose(1, 0, 2).copy()

    # Cases are drawn in batches of a bounded size and in the order scipy.stats.bootstrap drew
    # them (its percentile method), so the intervals are the ones it gave.
    rng = np.random.default_rng(seed)
    batch = max(1, min(resamples, 5_000_000 // max(n * len(chosen), 1)))
    overall = []
    for start in range(0, resamples, batch):
        drawn = rng.integers(0, n, (min(batch, resamples - start), n))
        weights = cluster_counts(indices=drawn, n_clusters=n)
        # A resample holding no scored case of a model keeps that model's interval finite.
        means = _nanmean_last(_ability_means(weights, columns))  # models x batch
        overall.append(np.where(np.isnan(means), 0.0, means))
    tail = (1 - LEVEL) / 2
    bounds = quantiles(
        values=np.concatenate(overall, axis=-1),
        probabilities=np.broadcast_to([tail, 1 - tail], (len(chosen), 2)),
    )
    low, high = bounds[:, 0], bounds[:, 1]
    for slot, i in enumerate(np.flatnonzero(scored)):
        intervals[i] = (float(low[slot]), float(high[slot]))
    return intervals


def model_aggregate(*, matrix: np.ndarray, catastrophic: np.ndarray) -> ModelScores:
    """Aggregate one model: ``matrix`` is cases x abilities with NaN rows for unscored cases.

    Ability score = mean over scored cases holding the ability; category = mean of its
    abilities; overall = mean over abilities.
    """
    matrix = np.asarray(matrix, dtype=float)
    scored = ~np.isnan(matrix).all(axis=1) if matrix.size else np.zeros(len(matrix), bool)
    counts = (~np.isnan(matrix)).sum(axis=0)
    sums = np.nansum(matrix, axis=0)
    abilities = {
        code: float(sums[j] / counts[j]) for j, code in enumerate(SCORED_CODES) if counts[j] > 0
    }
    categories = {}
    for category in CATEGORIES:
        members = [v for code, v in abilities.items() if CATEGORY_OF[code] == category]
        if members:
            categories[category] = sum(members) / len(members)
    return ModelScores(
        abilities=abilities,
        categories=categories,
        overall=sum(abilities.values()) / len(abilities) if abilities else None,
        scored=int(scored.sum()),
        total=len(matrix),
        catastrophic_cases=int((np.asarray(catastrophic, bool) & scored).sum()),
    )


def hard_decay(*, normal: float | None, hard: float | None) -> Mapping[str, float | None]:
    """The hard-set drop in points, relative to the normal score, and relative to the hard score.

    The paper's "37.8%" is (normal − hard) / hard; it is reported under its own name.
    """
    if normal is None or hard is None:
        return {"points": None, "of_normal": None, "of_hard": None}
    drop = normal - hard
    return {
        "points": drop,
        "of_normal": drop / normal if normal else None,
        "of_hard": drop / hard if hard else None,
    }
