"""The plain arrays a study report is computed from (pure: no ORM).

One row per item, an item being one criterion of one unit (case × model response). The
selector fills this from the database; the benchmark and tests can build it directly.
"""

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

# Code order of every label array: 0 = hit, 1 = miss, MISSING (−1) = no label.
CATEGORIES: tuple[str, str] = ("hit", "miss")
HIT, MISS = 0, 1


def hit_codes(hit: np.ndarray) -> np.ndarray:
    """HIT where ``hit``, else MISS."""
    return np.where(hit, HIT, MISS)


def columns(rows: list[tuple], dtypes: tuple) -> list[np.ndarray]:
    """Rows (as a query gives them) as one array per column, of the given dtypes."""
    if not rows:
        return [np.array([], dtype=dtype) for dtype in dtypes]
    # One object array, not a tuple per column: no new Python containers for the collector.
    table = np.array(rows, dtype=object)
    return [table[:, i].astype(dtype) for i, dtype in enumerate(dtypes)]


class ItemIndex:
    """Finds the item row of (owner, rubric item id) pairs, the owner being an annotation
    unit, a response or a study unit, for many pairs at once: the items' keys sorted once,
    then searched (a dict of tuples per item cost a Python object per item and per lookup)."""

    def __init__(self, *, owners: np.ndarray, items: np.ndarray) -> None:
        self._stride = int(items.max()) + 1 if items.size else 1
        keys = owners.astype(np.int64) * self._stride + items
        self._order = np.argsort(keys, kind="stable")
        self._keys = keys[self._order]

    def rows(self, *, owners: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Each pair's row, −1 where the pair is no item; of two items with one key, the
        later row (as a dict filled in row order would give)."""
        owners = np.asarray(owners, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        keys = owners * self._stride + items
        if not self._keys.size:
            return np.full(keys.shape, -1, dtype=np.int64)
        at = np.maximum(np.searchsorted(self._keys, keys, side="right") - 1, 0)
        # An item id past the study's largest would wrap into the next owner's keys.
        found = (items < self._stride) & (self._keys[at] == keys)
        return np.where(found, self._order[at], -1)


@dataclass(frozen=True)
class JudgeLabels:
    """One judge set-up's verdicts on the study's items (its runs over the study's models)."""

    name: str
    runs: tuple[int, ...]
    codes: np.ndarray  # (n_items,) HIT / MISS / MISSING (no verdict, or an error)
    errors: int  # items whose verdict is an error: never read as "miss"


@dataclass(frozen=True)
class StudyData:
    study: dict[str, Any]  # name, dataset, status, seed, fraction, gate_threshold, ...
    case_keys: tuple[str, ...]  # question id per case index
    models: tuple[str, ...]  # model name per model index
    experts: tuple[str, ...]  # pseudonym per rater column
    case: np.ndarray  # (n_items,) case index: what the bootstrap resamples
    unit: np.ndarray  # (n_items,) unit index
    model: np.ndarray  # (n_items,) model index
    criterion: np.ndarray  # (n_items,) rubric item id: the same criterion in several units
    ability: np.ndarray  # (n_items,) ability code (str)
    points: np.ndarray  # (n_items,) float, NaN where the criterion has none (catastrophic)
    hard: np.ndarray  # (n_items,) bool: the case is in the hard split
    ratings: np.ndarray  # (n_items, n_experts) codes from rating submissions
    gold: np.ndarray  # (n_items,) gold code, MISSING where the unit has no gold yet
    provenance: np.ndarray  # (n_items,) "3/3", "2/1", "adjudicated" or "" without gold
    unit_states: dict[str, int]  # units per StudyUnit state
    judges: tuple[JudgeLabels, ...] = field(default_factory=tuple)
    # One record per criterion a senior decided (validation.report.adjudication).
    adjudications: tuple[Any, ...] = field(default_factory=tuple)
    # The rubric versions of labels and verdicts (validation.report.rubric_changes), if known.
    rubric: Any = None
    # Units dropped from the sample at the close (validation.report.dropped): no items above.
    dropped: tuple[Any, ...] = field(default_factory=tuple)
    # One record per rater note on a label (validation.report.notes).
    notes: tuple[Any, ...] = field(default_factory=tuple)
    # Per judge with repeats, its verdicts from each repeat (validation.report.stability).
    repeats: tuple[Any, ...] = field(default_factory=tuple)
    # The raters' calibration, running agreement and time (validation.report.rater_quality).
    raters: tuple[Any, ...] = field(default_factory=tuple)

    @property
    def n_items(self) -> int:
        return int(self.case.shape[0])

    @property
    def n_cases(self) -> int:
        return len(self.case_keys)

    def check(self) -> None:
        """Refuse arrays of different lengths: a misaligned report would be silently wrong."""
        n = self.n_items
        for name in (
            "unit",
            "model",
            "criterion",
            "ability",
            "points",
            "hard",
            "gold",
            "provenance",
        ):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} entries for {n} items")
        if self.ratings.shape != (n, len(self.experts)):
            raise ValueError(f"ratings are {self.ratings.shape}, expected {(n, len(self.experts))}")
        for judge in self.judges:
            if judge.codes.shape != (n,):
                raise ValueError(f"judge {judge.name!r} has {judge.codes.shape[0]} labels for {n}")
        for repeats in self.repeats:
            if repeats.codes.shape[0] != n:
                raise ValueError(f"repeats of {repeats.name!r} have {repeats.codes.shape[0]} rows")


def study_data_for_cases(*, data: StudyData, cases: list[str]) -> StudyData:
    """The study restricted to the items of ``cases`` (question ids), as if only they had been
    sampled: cases are renumbered in their original order, so the bootstrap resamples exactly
    these. Study-wide records (adjudications, dropped units, notes, rater quality, rubric
    versions, unit states) are not per item and are left out rather than misattributed."""
    keep_case = np.isin(np.asarray(data.case_keys, dtype=object), list(cases))
    renumber = np.cumsum(keep_case) - 1
    rows = keep_case[data.case]
    return StudyData(
        study=data.study,
        case_keys=tuple(k for k, kept in zip(data.case_keys, keep_case, strict=True) if kept),
        models=data.models,
        experts=data.experts,
        case=renumber[data.case[rows]],
        unit=data.unit[rows],
        model=data.model[rows],
        criterion=data.criterion[rows],
        ability=data.ability[rows],
        points=data.points[rows],
        hard=data.hard[rows],
        ratings=data.ratings[rows],
        gold=data.gold[rows],
        provenance=data.provenance[rows],
        unit_states={},
        judges=tuple(replace(j, codes=j.codes[rows]) for j in data.judges),
        repeats=tuple(replace(r, codes=r.codes[rows]) for r in data.repeats),
    )
