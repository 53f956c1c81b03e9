"""The golden standard (majority of raters) and each labeller against the raters.

Comparing a judge with the majority of three experts flatters the judge, because a
majority is less noisy than any one expert. The fair human baseline is each expert against
the other experts, one pair at a time, set beside the judge against every expert the same
way — as HealthBench's meta-evaluation does (pairs pooled, balanced F1 reported).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from annotation.majority import NO_MAJORITY, majority_code
from validation.statistics.coding import MISSING, Ratings, category_counts
from validation.statistics.pairwise import (
    PairwiseAgreement,
    pairwise_from_tables,
    pairwise_tables,
)
from validation.statistics.provenance import SPLIT, UNANIMOUS
from validation.statistics.results import BootstrapSettings


@dataclass(frozen=True)
class Gold:
    codes: np.ndarray  # (n_items,) gold code, MISSING for ties and unrated items
    unanimous: int  # two or more ratings, all alike (3/3)
    split: int  # a strict plurality with dissent (2/1)
    single: int  # one rating only: it is the gold
    ties: int  # the top categories tie: no gold, excluded
    unrated: int
    # (n_items,) "unanimous", "split" or "" (single rating, tie, unrated): the provenance keys
    # of ``validation.statistics.provenance``
    provenance: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int((self.codes != MISSING).sum())


def gold_majority(*, codes: ArrayLike, n_categories: int) -> Gold:
    """Gold label per item: the category most raters chose, when no other category ties it
    (``annotation.majority.majority_code``, the project's one majority rule)."""
    counts = category_counts(codes=np.asarray(codes), n_categories=n_categories)
    ratings = counts.sum(axis=1)
    top = counts.max(axis=1, initial=0)
    rated = ratings > 0
    winner = np.array([majority_code(row) for row in counts.tolist()], dtype=int)
    has_gold = rated & (winner != NO_MAJORITY)
    gold = np.where(has_gold, winner, MISSING)
    unanimous = has_gold & (ratings >= 2) & (top == ratings)
    split = has_gold & (top < ratings)
    return Gold(
        codes=gold,
        unanimous=int(unanimous.sum()),
        split=int(split.sum()),
        single=int((has_gold & (ratings == 1)).sum()),
        ties=int((rated & ~has_gold).sum()),
        unrated=int((~rated).sum()),
        provenance=np.where(unanimous, UNANIMOUS, np.where(split, SPLIT, "")).astype(object),
    )


def pooled_pair_tables(
    *,
    predicted: ArrayLike,
    references: ArrayLike,
    clusters: ArrayLike,
    n_clusters: int,
    n_categories: int,
) -> np.ndarray:
    """Per-cluster confusion tables of one labeller against each reference column, pooled:
    the columns one after another as the pairs of a single table (one count, not one a column)."""
    references = np.asarray(references)
    columns = references.shape[1]
    return pairwise_tables(
        reference=references.T.ravel(),
        predicted=np.tile(np.asarray(predicted), columns),
        clusters=np.tile(np.asarray(clusters), columns),
        n_clusters=n_clusters,
        n_categories=n_categories,
    )


def _pooled(
    *,
    ratings: Ratings,
    predicted: np.ndarray,
    columns: Sequence[int],
    bootstrap: BootstrapSettings | None,
) -> PairwiseAgreement:
    tables = pooled_pair_tables(
        predicted=predicted,
        references=ratings.codes[:, list(columns)],
        clusters=ratings.clusters,
        n_clusters=ratings.n_clusters,
        n_categories=ratings.n_categories,
    )
    return pairwise_from_tables(
        cluster_tables=tables, categories=ratings.categories, bootstrap=bootstrap
    )


def raters_leave_one_out(
    *, ratings: Ratings, bootstrap: BootstrapSettings | None = None
) -> dict[str, PairwiseAgreement]:
    """Each rater's labels against every other rater's labels on the same items, pooled."""
    everyone = range(len(ratings.raters))
    return {
        rater: _pooled(
            ratings=ratings,
            predicted=ratings.codes[:, column],
            columns=[other for other in everyone if other != column],
            bootstrap=bootstrap,
        )
        for column, rater in enumerate(ratings.raters)
    }


@dataclass(frozen=True)
class AgainstRaters:
    pooled: PairwiseAgreement  # against every rater's label, pairs pooled
    by_rater: dict[str, PairwiseAgreement]  # against one rater at a time


def labeller_against_raters(
    *,
    ratings: Ratings,
    predicted: ArrayLike,
    bootstrap: BootstrapSettings | None = None,
    by_rater_bootstrap: bool = False,
) -> AgainstRaters:
    """A labeller (the judge) against each rater, pooled and one rater at a time.

    Per-rater intervals are off by default: they cost one bootstrap per rater.
    """
    predicted = np.asarray(predicted, dtype=np.int64)
    if predicted.shape != (ratings.n_items,):
        raise ValueError(f"{predicted.shape[0]} labels for {ratings.n_items} items")
    everyone = list(range(len(ratings.raters)))
    return AgainstRaters(
        pooled=_pooled(ratings=ratings, predicted=predicted, columns=everyone, bootstrap=bootstrap),
        by_rater={
            rater: _pooled(
                ratings=ratings,
                predicted=predicted,
                columns=[column],
                bootstrap=bootstrap if by_rater_bootstrap else None,
            )
            for column, rater in enumerate(ratings.raters)
        },
    )
