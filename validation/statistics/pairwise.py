"""Agreement of two labellers on the same items, from their confusion matrix.

Rows of a confusion matrix are the reference (the gold, or "the other rater"), columns the
labeller under test (the judge); cell [i, j] counts items the reference put in category i
and the labeller in j. Only items both labelled count.

Chance agreement differs by statistic: Cohen's κ uses each labeller's own marginals, Scott's
π their pooled marginals, Gwet's AC1 the pooled marginals' spread over K categories (stable
when one category dominates, as rubric misses do), and PABAK assumes uniform categories.
"""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.coding import MISSING
from validation.statistics.results import BootstrapSettings, Estimate
from validation.statistics.tables import (
    TableStatistic,
    label_text,
    proportion_statistic,
    ratio,
    table_estimates,
)


def _n(c: np.ndarray) -> np.ndarray:
    return c.sum(axis=(-2, -1))


def _agreeing(c: np.ndarray) -> np.ndarray:
    return np.trace(c, axis1=-2, axis2=-1)


def _observed(c: np.ndarray) -> np.ndarray:
    return ratio(_agreeing(c), _n(c))


def _reference(c: np.ndarray) -> np.ndarray:
    return c.sum(axis=-1)


def _predicted(c: np.ndarray) -> np.ndarray:
    return c.sum(axis=-2)


def _pooled(c: np.ndarray) -> np.ndarray:
    """Share of each category among both labellers' labels, (..., K)."""
    return ratio(_reference(c) + _predicted(c), 2 * _n(c)[..., None])


def _corrected(observed: np.ndarray, chance: np.ndarray) -> np.ndarray:
    return ratio(observed - chance, 1 - chance)


def _cohen(c: np.ndarray) -> np.ndarray:
    n = _n(c)[..., None]
    chance = (ratio(_reference(c), n) * ratio(_predicted(c), n)).sum(axis=-1)
    return _corrected(_observed(c), chance)


def _scott(c: np.ndarray) -> np.ndarray:
    return _corrected(_observed(c), (_pooled(c) ** 2).sum(axis=-1))


def _gwet(c: np.ndarray) -> np.ndarray:
    k = c.shape[-1]
    if k < 2:
        return np.full(c.shape[:-2], np.nan)
    pooled = _pooled(c)
    return _corrected(_observed(c), (pooled * (1 - pooled)).sum(axis=-1) / (k - 1))


def _pabak(c: np.ndarray) -> np.ndarray:
    k = c.shape[-1]
    if k < 2:
        return np.full(c.shape[:-2], np.nan)
    return (k * _observed(c) - 1) / (k - 1)


def _diagonal(c: np.ndarray, code: int) -> np.ndarray:
    return c[..., code, code]


def _f1(c: np.ndarray, code: int) -> np.ndarray:
    # 2TP / (2TP + FP + FN): 0 for a class the labeller never uses although the reference
    # does (as scikit-learn), undefined only for a class absent from both.
    return ratio(2 * _diagonal(c, code), _reference(c)[..., code] + _predicted(c)[..., code])


def _balanced_f1(c: np.ndarray) -> np.ndarray:
    return np.mean([_f1(c, code) for code in range(c.shape[-1])], axis=0)


def _pairs(c: np.ndarray) -> int:
    return round(float(_n(c)))


def _no_pairs(c: np.ndarray) -> str | None:
    return "no item carries both labels" if _n(c) == 0 else None


def pairwise_statistics(categories: Sequence[Hashable]) -> dict[str, TableStatistic]:
    """The pairwise statistics for a category scheme, keyed by report name."""
    k = len(categories)

    def name(code: int) -> str:
        return label_text(categories, code)

    def single_category(c: np.ndarray) -> str:
        return _no_pairs(c) or (
            "chance agreement is 1: both labellers used only "
            + ", ".join(name(j) for j in range(k) if _reference(c)[j] + _predicted(c)[j] > 0)
        )

    def too_few_categories(c: np.ndarray) -> str:
        return _no_pairs(c) or f"{k} category in the scheme: at least two are needed"

    def absent_class(c: np.ndarray) -> str:
        missing = [name(j) for j in range(k) if _reference(c)[j] + _predicted(c)[j] == 0]
        return _no_pairs(c) or (
            f"{', '.join(missing)} occurs in neither labelling, so its F1 is undefined"
        )

    statistics = {
        "agreement": proportion_statistic(
            "agreement",
            successes=_agreeing,
            trials=_n,
            explain=_no_pairs,
            count=_pairs,
        ),
        "cohen_kappa": TableStatistic("cohen_kappa", _cohen, single_category, _pairs),
        "scott_pi": TableStatistic("scott_pi", _scott, single_category, _pairs),
        "gwet_ac1": TableStatistic("gwet_ac1", _gwet, too_few_categories, _pairs),
        "pabak": TableStatistic("pabak", _pabak, too_few_categories, _pairs),
        "balanced_f1": TableStatistic("balanced_f1", _balanced_f1, absent_class, _pairs),
    }
    for code in range(k):
        statistics.update(_class_statistics(code=code, label=name(code)))
    return statistics


def _class_statistics(*, code: int, label: str) -> dict[str, TableStatistic]:
    def reference_count(c: np.ndarray) -> int:
        return round(float(_reference(c)[code]))

    def predicted_count(c: np.ndarray) -> int:
        return round(float(_predicted(c)[code]))

    return {
        f"recall[{code}]": proportion_statistic(
            f"recall of {label}",
            successes=lambda c: _diagonal(c, code),
            trials=lambda c: _reference(c)[..., code],
            explain=lambda c: f"no reference label is {label}",
            count=reference_count,
        ),
        f"precision[{code}]": proportion_statistic(
            f"precision of {label}",
            successes=lambda c: _diagonal(c, code),
            trials=lambda c: _predicted(c)[..., code],
            explain=lambda c: f"the labeller never chose {label}",
            count=predicted_count,
        ),
        f"f1[{code}]": TableStatistic(
            f"F1 of {label}",
            lambda c: _f1(c, code),
            lambda c: f"{label} occurs in neither labelling",
            _pairs,
        ),
    }


def confusion_matrix(
    *, reference: ArrayLike, predicted: ArrayLike, n_categories: int
) -> np.ndarray:
    """Counts of (reference, predicted) code pairs over items where both are present."""
    return pairwise_tables(
        reference=reference,
        predicted=predicted,
        clusters=np.zeros(len(np.asarray(reference)), dtype=np.int64),
        n_clusters=1,
        n_categories=n_categories,
    )[0].astype(np.int64)


def pairwise_tables(
    *,
    reference: ArrayLike,
    predicted: ArrayLike,
    clusters: ArrayLike,
    n_clusters: int,
    n_categories: int,
) -> np.ndarray:
    """Per-cluster confusion matrices (n_clusters, K, K) of two code vectors."""
    reference = np.asarray(reference, dtype=np.int64)
    predicted = np.asarray(predicted, dtype=np.int64)
    clusters = np.asarray(clusters, dtype=np.int64)
    if not reference.shape == predicted.shape == clusters.shape:
        raise ValueError("reference, predicted and clusters must have one entry per item")
    both = (reference != MISSING) & (predicted != MISSING)
    k = n_categories
    cells = clusters[both] * k * k + reference[both] * k + predicted[both]
    return np.bincount(cells, minlength=n_clusters * k * k).reshape(n_clusters, k, k).astype(float)


def _from_confusion(key: str, confusion: ArrayLike) -> Estimate:
    table = np.asarray(confusion, dtype=float)
    statistic = pairwise_statistics(tuple(range(table.shape[-1])))[key]
    return table_estimates(statistics={key: statistic}, cluster_tables=table[None])[key]


def percent_agreement(*, confusion: ArrayLike) -> Estimate:
    """Share of items on which the two labellers agree."""
    return _from_confusion("agreement", confusion)


def cohen_kappa(*, confusion: ArrayLike) -> Estimate:
    """Cohen's κ: chance agreement from each labeller's own category shares."""
    return _from_confusion("cohen_kappa", confusion)


def scott_pi(*, confusion: ArrayLike) -> Estimate:
    """Scott's π: chance agreement from the two labellers' pooled category shares."""
    return _from_confusion("scott_pi", confusion)


def gwet_ac1(*, confusion: ArrayLike) -> Estimate:
    """Gwet's AC1 for two raters, K = the confusion matrix's number of categories."""
    return _from_confusion("gwet_ac1", confusion)


def pabak(*, confusion: ArrayLike) -> Estimate:
    """Prevalence- and bias-adjusted κ, (K·p_o − 1)/(K − 1)."""
    return _from_confusion("pabak", confusion)


def balanced_f1(*, confusion: ArrayLike) -> Estimate:
    """Macro F1: the unweighted mean of every category's F1 (HealthBench's "balanced F1")."""
    return _from_confusion("balanced_f1", confusion)


@dataclass(frozen=True)
class ClassScores:
    precision: Estimate
    recall: Estimate
    f1: Estimate
    reference_share: float | None  # prevalence of the category among reference labels
    predicted_share: float | None


@dataclass(frozen=True)
class PairwiseAgreement:
    categories: tuple[Hashable, ...]
    confusion: np.ndarray
    agreement: Estimate
    cohen_kappa: Estimate
    scott_pi: Estimate
    gwet_ac1: Estimate
    pabak: Estimate
    balanced_f1: Estimate
    per_class: dict[Hashable, ClassScores] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.confusion.sum())

    def confusion_dict(self) -> dict[str, Any]:
        return {
            "labels": [str(c) for c in self.categories],
            "rows": "reference",
            "columns": "labeller",
            "matrix": self.confusion.astype(int).tolist(),
        }


def pairwise_agreement(
    *,
    reference: ArrayLike,
    predicted: ArrayLike,
    categories: Sequence[Hashable],
    clusters: ArrayLike | None = None,
    bootstrap: BootstrapSettings | None = None,
) -> PairwiseAgreement:
    """Every pairwise statistic for two code vectors (MISSING = −1 where unlabelled).

    ``clusters`` (one cluster index per item, 0..C−1) are what the bootstrap resamples;
    without them each item is its own cluster, which understates the uncertainty when
    items of one case are correlated.
    """
    reference = np.asarray(reference, dtype=np.int64)
    if clusters is None:
        clusters = np.arange(reference.shape[0])
    clusters = np.asarray(clusters, dtype=np.int64)
    n_clusters = int(clusters.max()) + 1 if clusters.size else 0
    tables = pairwise_tables(
        reference=reference,
        predicted=predicted,
        clusters=clusters,
        n_clusters=n_clusters,
        n_categories=len(categories),
    )
    return pairwise_from_tables(cluster_tables=tables, categories=categories, bootstrap=bootstrap)


def pairwise_from_tables(
    *,
    cluster_tables: np.ndarray,
    categories: Sequence[Hashable],
    bootstrap: BootstrapSettings | None = None,
) -> PairwiseAgreement:
    """``pairwise_agreement`` from per-cluster confusion tables already summed."""
    if cluster_tables.shape[0] == 0:
        cluster_tables = np.zeros((1, len(categories), len(categories)))
    found = table_estimates(
        statistics=pairwise_statistics(categories),
        cluster_tables=cluster_tables,
        bootstrap=bootstrap,
    )
    total = cluster_tables.sum(axis=0)
    n = total.sum()
    per_class = {
        category: ClassScores(
            precision=found[f"precision[{code}]"],
            recall=found[f"recall[{code}]"],
            f1=found[f"f1[{code}]"],
            reference_share=float(total[code].sum() / n) if n else None,
            predicted_share=float(total[:, code].sum() / n) if n else None,
        )
        for code, category in enumerate(categories)
    }
    return PairwiseAgreement(
        categories=tuple(categories),
        confusion=total,
        agreement=found["agreement"],
        cohen_kappa=found["cohen_kappa"],
        scott_pi=found["scott_pi"],
        gwet_ac1=found["gwet_ac1"],
        pabak=found["pabak"],
        balanced_f1=found["balanced_f1"],
        per_class=per_class,
    )


# McNemar's test is exact (binomial) while the discordant pairs are this few, as is usual.
MCNEMAR_EXACT_BELOW = 25


def two_by_two_indices(*, confusion: ArrayLike) -> dict[str, Any] | None:
    """What accompanies κ and PABAK on a 2×2 table (rows the reference, columns the labeller):
    Byrt, Bishop & Carlin's prevalence index (a − d) / n and bias index (b − c) / n, and
    McNemar's paired test of b (reference first category, labeller second) against c: exact
    (two-sided binomial) below ``MCNEMAR_EXACT_BELOW`` discordant pairs, else χ² with
    continuity correction. None for another shape or an empty table."""
    table = np.asarray(confusion, dtype=float)
    if table.shape != (2, 2) or table.sum() == 0:
        return None
    from scipy import stats  # deferred, as everywhere here: only a figure needs it

    (a, b), (c, d) = table
    n = table.sum()
    discordant = b + c
    if discordant < MCNEMAR_EXACT_BELOW:
        method = "exact"
        p = 1.0 if discordant == 0 else float(stats.binomtest(int(b), int(discordant)).pvalue)
    else:
        method = "chi-square, continuity-corrected"
        p = float(stats.chi2.sf((abs(b - c) - 1) ** 2 / discordant, df=1))
    return {
        "prevalence_index": float((a - d) / n),
        "bias_index": float((b - c) / n),
        "mcnemar": {"b": int(b), "c": int(c), "p_value": p, "method": method},
    }
