"""Saturation and difficulty of a rubric from several models' verdicts, with no database access.

The paper's quality control (§3): after a scoring round over several models, a criterion hit
by every model tells them apart no more (*saturated*) and a case every model does well on is
*too easy*; the cases all models do worst on are proposed for the Hard set.

* ``hit_rate``: the share of the models that hit the criterion.
* ``saturated``: positive points and hit by every model. A harmful (negative-points) or
  catastrophic criterion is never saturated: nobody wants it dropped for being avoided.
* ``discrimination``: the point-biserial correlation, across the models, between hitting the
  criterion (1/0) and the model's mean question score over the cases (uncorrected: the
  criterion's own contribution stays in the total). Positive when the models that hit it do
  better overall, so a harmful criterion that discriminates is negative. None when it cannot
  be computed: fewer than two models, every model hit it or none did, or the models' mean
  scores are all equal.
* a case's ``mean_score``: the mean over the models of its question score, the paper-mode
  score the leaderboard gives the case (``benchmark.scoring.case_scores``: the mean of its
  per-ability scores, 0–100, zero after a catastrophic failure).
* ``too_easy``: ``mean_score`` above ``easy_threshold``.
* ``proposed_hard``: ``mean_score`` at or below the ``hard_quantile`` quantile of the cases'
  mean scores, taken as the smallest mean score that at least that share of the cases reach
  or fall under (numpy's ``inverted_cdf``). Every case tied at that score is proposed, so the
  proposed share can exceed the quantile when scores tie.

A case on which any listed model has an error or a missing verdict is left out of everything
(its criteria, the models' mean scores, the quantile) and listed in ``excluded_cases`` with
those models: reading it as "not met" would be wrong, and keeping it for the other models would
make hit rates over different sets of models. Never silently: the summary names each one.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchmark.scoring import RubricLayout, case_scores

DEFAULT_EASY_THRESHOLD = 80.0
# The released data's share of hard cases is 84 / 296 = 0.28 (question_all.jsonl; pinned in
# tests/benchmark/test_saturation.py), so by default about as many cases are proposed.
DEFAULT_HARD_QUANTILE = 0.3
DISCRIMINATION = "point-biserial"


class SaturationError(ValueError):
    """The verdicts cannot be analysed as asked (no model, a bad option, unscored cases)."""


@dataclass(frozen=True)
class CriterionStat:
    question_id: str
    position: int
    hit_rate: float
    saturated: bool
    discrimination: float | None

    def as_dict(self) -> dict:
        return {
            "question_id": self.question_id,
            "position": self.position,
            "hit_rate": self.hit_rate,
            "saturated": self.saturated,
            "discrimination": self.discrimination,
        }


@dataclass(frozen=True)
class CaseStat:
    question_id: str
    mean_score: float
    too_easy: bool
    proposed_hard: bool

    def as_dict(self) -> dict:
        return {
            "question_id": self.question_id,
            "mean_score": self.mean_score,
            "too_easy": self.too_easy,
            "proposed_hard": self.proposed_hard,
        }


@dataclass(frozen=True)
class Saturation:
    models: tuple[str, ...]
    criteria: tuple[CriterionStat, ...]
    cases: tuple[CaseStat, ...]
    easy_threshold: float
    hard_quantile: float
    hard_cutoff: float
    # Cases left out: (question id, the models with an error or no verdict on it).
    excluded_cases: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def summary(self) -> dict:
        found = [c.discrimination for c in self.criteria if c.discrimination is not None]
        hard = sum(case.proposed_hard for case in self.cases)
        return {
            "models": list(self.models),
            "cases": len(self.cases),
            "criteria": len(self.criteria),
            "saturated": sum(c.saturated for c in self.criteria),
            "too_easy": sum(case.too_easy for case in self.cases),
            "proposed_hard": hard,
            "hard_share": hard / len(self.cases) if self.cases else 0.0,
            "easy_threshold": self.easy_threshold,
            "hard_quantile": self.hard_quantile,
            "hard_cutoff": self.hard_cutoff,
            "discrimination": DISCRIMINATION,
            "discrimination_mean": sum(found) / len(found) if found else None,
            "excluded_cases": [
                {"question_id": question_id, "models": list(models)}
                for question_id, models in self.excluded_cases
            ],
        }

    def as_dict(self) -> dict:
        return {
            "criteria": [c.as_dict() for c in self.criteria],
            "cases": [c.as_dict() for c in self.cases],
            "summary": self.summary(),
        }


def _unscored_rows(
    *, question_ids: Sequence[str], layout: RubricLayout, hits: Mapping[str, Sequence]
) -> dict[int, list[str]]:
    """Case row -> the models with an error or no verdict on one of its criteria."""
    lacking: dict[int, list[str]] = {}
    for model, values in hits.items():
        if len(values) != len(layout.points):
            raise SaturationError(
                f"model {model!r}: {len(values)} verdicts for {len(layout.points)} criteria"
            )
        unusable = np.array([value is None for value in values], dtype=bool)
        for row in np.unique(layout.case_of[unusable]).tolist():
            lacking.setdefault(row, []).append(model)
    return lacking


def _point_biserial(matrix: np.ndarray, totals: np.ndarray) -> list[float | None]:
    """Per criterion (column of ``matrix``, models x criteria), the correlation of its hits
    with the models' totals; None where either is constant."""
    undefined = matrix.all(axis=0) | ~matrix.any(axis=0) | (np.ptp(totals) == 0)
    hits = matrix - matrix.mean(axis=0)
    spread = totals - totals.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (spread @ hits) / np.sqrt((hits**2).sum(axis=0) * (spread**2).sum())
    return [None if skip else float(value) for skip, value in zip(undefined, r, strict=True)]


def saturation_compute(
    *,
    question_ids: Sequence[str],
    layout: RubricLayout,
    hits: Mapping[str, Sequence[bool | None]],
    easy_threshold: float = DEFAULT_EASY_THRESHOLD,
    hard_quantile: float = DEFAULT_HARD_QUANTILE,
) -> Saturation:
    """Saturation of each criterion and difficulty of each case (the module's rules).

    ``layout`` holds the rubric with one row per case of ``question_ids``, its criteria in
    rubric order; ``hits`` maps each model to one verdict per criterion in layout order (True
    met, False not met, None an error or no verdict: its case is excluded and listed).
    """
    if not hits:
        raise SaturationError("no model to analyse: judge at least one model on the dataset")
    if not 0 < hard_quantile < 1:
        raise SaturationError(f"the hard quantile must be between 0 and 1, got {hard_quantile}")
    if len(question_ids) != layout.cases:
        raise SaturationError(f"{len(question_ids)} question ids for {layout.cases} cases")
    lacking = _unscored_rows(question_ids=question_ids, layout=layout, hits=hits)
    if layout.cases and len(lacking) == layout.cases:
        raise SaturationError(
            "no case has a met / not met verdict from every model: judge the errors again "
            "(`judge --retry-errors`) or leave a model out (--models)"
        )
    kept = np.array([row not in lacking for row in range(layout.cases)], dtype=bool)
    models = tuple(hits)
    matrix = np.array([[bool(v) for v in hits[m]] for m in models], dtype=bool).reshape(
        len(models), len(layout.points)
    )
    scores = np.array(
        [
            [case.score for case in case_scores(values=values, catastrophic=catastrophic)]
            for values, catastrophic in (layout.score(hits=row, scoring="paper") for row in matrix)
        ]
    ).reshape(len(models), layout.cases)
    totals = scores[:, kept].mean(axis=1) if kept.any() else np.zeros(len(models))
    mean_scores = scores.mean(axis=0)
    cutoff = (
        float(np.quantile(mean_scores[kept], hard_quantile, method="inverted_cdf"))
        if kept.any()
        else 0.0
    )
    hit_rates = matrix.mean(axis=0)
    discrimination = _point_biserial(matrix, totals)
    starts = np.searchsorted(layout.case_of, np.arange(layout.cases))
    criteria = tuple(
        CriterionStat(
            question_id=question_ids[row],
            position=int(index - starts[row]),
            hit_rate=float(hit_rates[index]),
            saturated=bool(layout.points[index] > 0 and layout.column_of[index] >= 0)
            and bool(matrix[:, index].all()),
            discrimination=discrimination[index],
        )
        for index, row in enumerate(layout.case_of)
        if kept[row]
    )
    cases = tuple(
        CaseStat(
            question_id=question_ids[row],
            mean_score=float(mean_scores[row]),
            too_easy=bool(mean_scores[row] > easy_threshold),
            proposed_hard=bool(mean_scores[row] <= cutoff),
        )
        for row in range(layout.cases)
        if kept[row]
    )
    excluded = tuple((question_ids[row], tuple(names)) for row, names in sorted(lacking.items()))
    return Saturation(models, criteria, cases, easy_threshold, hard_quantile, cutoff, excluded)
