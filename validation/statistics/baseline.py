"""The human baseline: each expert against the other two, and the judge on the same pairs.

For an item with exactly three ratings and each of its raters r, the reference for r is the
common label of the two other raters when they agree; when they disagree the item is skipped
for r. An expert is scored against its references; the judge is scored against the very same
(item, r) references, so the two figures are like for like. The judge's non-inferiority is
the difference judge − experts in pooled macro-F1 with a paired, cluster-bootstrap interval:
both figures are recomputed on every resample of clusters.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from validation.gate import AT_LEAST, NOT_ENOUGH_DATA, condition_decide
from validation.statistics.bootstrap import cluster_bootstrap, tables_statistic
from validation.statistics.coding import MISSING, Ratings
from validation.statistics.pairwise import (
    PairwiseAgreement,
    pairwise_from_tables,
    pairwise_statistics,
    pairwise_tables,
)
from validation.statistics.results import BootstrapSettings, Interval

RATERS_PER_ITEM = 3
NONINFERIORITY_DELTA = -0.05


def others_references(*, codes: ArrayLike) -> np.ndarray:
    """The reference code for each (item, rater), (n_items, n_raters): the common label of
    the item's two other raters; MISSING where they disagree, where r gave no label, and on
    every item without exactly three ratings."""
    codes = np.asarray(codes, dtype=np.int64)
    rated = codes != MISSING
    references = np.full(codes.shape, MISSING, dtype=np.int64)
    rows = np.flatnonzero(rated.sum(axis=1) == RATERS_PER_ITEM)[:, None]
    columns = np.nonzero(rated[rows[:, 0]])[1].reshape(-1, RATERS_PER_ITEM)
    labels = codes[rows, columns]
    # For each of the three raters, the labels of the other two.
    first, second = labels[:, [1, 0, 0]], labels[:, [2, 2, 1]]
    references[rows, columns] = np.where(first == second, first, MISSING)
    return references


@dataclass(frozen=True)
class AgainstOthers:
    pooled: PairwiseAgreement  # over every (item, r) pair
    by_rater: dict[str, PairwiseAgreement]  # the pairs of one reference rater r


def _rater_tables(*, ratings: Ratings, references: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Per-rater, per-cluster confusion tables (n_raters, n_clusters, K, K) of ``predicted``
    (n_items, n_raters) against ``references`` of the same shape."""
    k = ratings.n_categories
    tables = np.zeros((len(ratings.raters), ratings.n_clusters, k, k))
    for column in range(len(ratings.raters)):
        tables[column] = pairwise_tables(
            reference=references[:, column],
            predicted=predicted[:, column],
            clusters=ratings.clusters,
            n_clusters=ratings.n_clusters,
            n_categories=k,
        )
    return tables


def _against_others(*, ratings: Ratings, tables: np.ndarray) -> AgainstOthers:
    categories = ratings.categories
    return AgainstOthers(
        pooled=pairwise_from_tables(cluster_tables=tables.sum(axis=0), categories=categories),
        by_rater={
            rater: pairwise_from_tables(cluster_tables=tables[column], categories=categories)
            for column, rater in enumerate(ratings.raters)
        },
    )


def _judge_columns(ratings: Ratings, judge: ArrayLike) -> np.ndarray:
    judge = np.asarray(judge, dtype=np.int64)
    if judge.shape != (ratings.n_items,):
        raise ValueError(f"{judge.shape[0]} judge labels for {ratings.n_items} items")
    return np.repeat(judge[:, None], len(ratings.raters), axis=1)


def experts_against_others(*, ratings: Ratings) -> AgainstOthers:
    """Each expert r against the agreeing label of the other two, per expert and pooled."""
    references = others_references(codes=ratings.codes)
    tables = _rater_tables(ratings=ratings, references=references, predicted=ratings.codes)
    return _against_others(ratings=ratings, tables=tables)


def judge_against_others(*, ratings: Ratings, judge: ArrayLike) -> AgainstOthers:
    """The judge against the experts' references, keyed by the reference rater r."""
    references = others_references(codes=ratings.codes)
    tables = _rater_tables(
        ratings=ratings, references=references, predicted=_judge_columns(ratings, judge)
    )
    return _against_others(ratings=ratings, tables=tables)


@dataclass(frozen=True)
class NonInferiority:
    n: int  # (item, r) pairs both the expert r and the judge are scored on
    difference: float | None  # judge − experts, pooled macro-F1
    interval: Interval | None
    delta: float
    reason: str | None = None

    @property
    def passed(self) -> bool | None:
        """Lower bound of the difference ≥ delta; None when there is no interval, or one of
        zero width (every resample the same difference), which shows nothing."""
        interval = self.interval
        if interval is None or interval.low is None or interval.high <= interval.low:
            return None
        return interval.low >= self.delta

    @property
    def status(self) -> str:
        """The outcome in the gate's words (``validation.gate``): passed, failed, undecided
        while the interval straddles delta, not_enough_data without an interval that shows
        anything."""
        if self.passed is None:
            return NOT_ENOUGH_DATA
        interval = self.interval
        return condition_decide(
            value=self.difference,
            low=interval.low,
            high=interval.high,
            threshold=self.delta,
            direction=AT_LEAST,
        )

    def as_dict(self) -> dict[str, Any]:
        interval = self.interval
        data: dict[str, Any] = {
            "n": self.n,
            "difference": self.difference,
            "ci95": (
                {"low": interval.low, "high": interval.high, "method": interval.method}
                if interval is not None and interval.low is not None
                else None
            ),
            "delta": self.delta,
            "passed": self.passed,
            "status": self.status,
        }
        if self.reason is not None:
            data["reason"] = self.reason
        return data


def judge_noninferiority(
    *,
    ratings: Ratings,
    judge: ArrayLike,
    bootstrap: BootstrapSettings,
    delta: float = NONINFERIORITY_DELTA,
) -> NonInferiority:
    """Judge − experts in pooled macro-F1 on the (item, r) pairs the judge labelled, with a
    paired interval from resampling the clusters of ``ratings``."""
    judge_columns = _judge_columns(ratings, judge)
    references = np.where(judge_columns != MISSING, others_references(codes=ratings.codes), MISSING)
    both = np.stack(
        [
            _rater_tables(ratings=ratings, references=references, predicted=predicted).sum(axis=0)
            for predicted in (judge_columns, ratings.codes)
        ],
        axis=1,
    )  # (n_clusters, 2: judge, experts, K, K)
    macro_f1 = pairwise_statistics(ratings.categories)["balanced_f1"]

    def difference(tables: np.ndarray) -> np.ndarray:
        return macro_f1.compute(tables[..., 0, :, :]) - macro_f1.compute(tables[..., 1, :, :])

    total = both.sum(axis=0)
    n = int(total[0].sum())
    point = float(difference(total))
    if not np.isfinite(point):
        reason = next(
            f"{who}: {macro_f1.explain(table)}"
            for who, table in zip(("judge", "experts"), total, strict=True)
            if not np.isfinite(macro_f1.compute(table))
        )
        return NonInferiority(n=n, difference=None, interval=None, delta=delta, reason=reason)
    (interval,) = cluster_bootstrap(
        statistic=tables_statistic(compute=difference, cluster_tables=both),
        n_clusters=ratings.n_clusters,
        settings=bootstrap,
    )
    return NonInferiority(
        n=n, difference=point, interval=interval, delta=delta, reason=interval.reason
    )
