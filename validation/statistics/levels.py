"""Agreement among raters at a level of measurement: Krippendorff's α ordinal, interval or
ratio, and for numbers the intraclass correlation ICC(1,1), each with a cluster-bootstrap
interval (pure).

Both come from per-item additive sums, so the bootstrap re-weights per-case sums as every
statistic here does (``validation.statistics.tables``):

* α = 1 − D_o / D_e from the coincidence matrix (Krippendorff, 2011): each item with m ≥ 2
  values adds (n_c n_k − [c = k] n_c) / (m − 1) to cell (c, k), and
  α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck over the pairable values' totals n_c. The
  distances: ordinal δ_ck = Σ_{g from c to k} n_g − (n_c + n_k) / 2 (the categories in their
  order), interval (v_c − v_k)², ratio ((v_c − v_k) / (v_c + v_k))². The point estimate is
  the ``krippendorff`` package's (the tests check the closed form against it at each level).
* ICC(1,1), one-way random effects (Shrout & Fleiss 1979): each item is rated by its own
  raters, as in a study, so raters are not a factor. With items rated by different numbers of
  raters the mean-squares use k0 = (N − Σ m_i² / N) / (I − 1) (Donner 1986). Items with one
  rating are left out, as for α.
"""

from collections.abc import Sequence

import krippendorff
import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.results import BootstrapSettings, Estimate
from validation.statistics.tables import TableStatistic, cluster_sums, ratio, table_estimates

LEVELS = ("nominal", "ordinal", "interval", "ratio")
NUMERIC_LEVELS = ("interval", "ratio")


def _squared_distances(level: str, values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """δ² (..., K, K) between the categories, from their values and (ordinal) totals n_c."""
    k = values.shape[0]
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), (*totals.shape[:-1], k, k))
    if level == "ordinal":
        # Σ_{g=c}^{k} n_g for c ≤ k, symmetric: cumulative sums at the ends.
        through = np.cumsum(totals, axis=-1)
        before = through - totals
        low, high = np.minimum.outer(range(k), range(k)), np.maximum.outer(range(k), range(k))
        between = through[..., high] - before[..., low]
        half = (totals[..., :, None] + totals[..., None, :]) / 2
        return (between - half) ** 2
    difference = values[:, None] - values[None, :]
    if level == "interval":
        return np.broadcast_to(difference**2, (*totals.shape[:-1], k, k))
    total = values[:, None] + values[None, :]
    return np.broadcast_to(
        np.where(total == 0, 0.0, ratio(difference, total) ** 2), (*totals.shape[:-1], k, k)
    )


def _alpha_item_tables(counts: np.ndarray) -> np.ndarray:
    """Per item (n_items, K + K²): its pairable values per category, then its coincidences."""
    m = counts.sum(axis=1)
    pairable = (m >= 2)[:, None]
    k = counts.shape[1]
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(k)
    coincidences = np.where(pairable[:, :, None], ratio(pairs, (m - 1)[:, None, None]), 0.0)
    return np.concatenate([np.where(pairable, counts, 0.0), coincidences.reshape(-1, k * k)], 1)


def alpha_statistic(*, level: str, categories: Sequence[str], values: ArrayLike) -> TableStatistic:
    """α at ``level`` from summed ``_alpha_item_tables`` (categories in their order)."""
    values = np.asarray(values, dtype=float)
    k = len(categories)

    def compute(t: np.ndarray) -> np.ndarray:
        totals = t[..., :k]
        observed = t[..., k:].reshape((*t.shape[:-1], k, k))
        d2 = _squared_distances(level, values, totals)
        n = totals.sum(axis=-1)
        expected = (totals[..., :, None] * totals[..., None, :] * d2).sum(axis=(-2, -1))
        return 1 - ratio((n - 1) * (observed * d2).sum(axis=(-2, -1)), expected)

    def pairable_values(t: np.ndarray) -> int:
        return round(float(t[:k].sum()))

    def explain(t: np.ndarray) -> str:
        if pairable_values(t) == 0:
            return "no pairable values (no item has two or more ratings)"
        used = [repr(categories[j]) for j in range(k) if t[j] > 0]
        return f"expected disagreement is 0: every pairable value is {', '.join(used)}"

    return TableStatistic(f"Krippendorff's α ({level})", compute, explain, pairable_values)


def _icc_item_tables(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per item with ≥ 2 ratings: 1, m, m², Σy, Σy², (Σy)² / m (the one-way ANOVA's sums)."""
    m = counts.sum(axis=1)
    total = counts @ values
    squares = counts @ values**2
    rows = np.stack([np.ones_like(m), m, m**2, total, squares, ratio(total**2, m)], axis=1)
    return np.where((m >= 2)[:, None], rows, 0.0)


def _icc(t: np.ndarray) -> np.ndarray:
    items, n, n_squared, total, squares, by_item = np.moveaxis(t, -1, 0)
    between = ratio(by_item - ratio(total**2, n), items - 1)
    within = ratio(squares - by_item, n - items)
    k0 = ratio(n - ratio(n_squared, n), items - 1)
    return ratio(between - within, between + (k0 - 1) * within)


def _icc_explain(t: np.ndarray) -> str:
    if t[0] < 2:
        return f"{round(float(t[0]))} item(s) with two or more ratings: ICC needs two"
    return "no variance: every rating is the same number"


ICC = TableStatistic("ICC(1,1)", _icc, _icc_explain, lambda t: round(float(t[1])))


def level_reliability(
    *,
    counts: ArrayLike,
    categories: Sequence[str],
    values: ArrayLike,
    level: str,
    clusters: ArrayLike,
    bootstrap: BootstrapSettings | None = None,
) -> dict[str, Estimate]:
    """``krippendorff_alpha`` at ``level`` and, for numbers, ``icc``, from per-item category
    counts (n_items, K) whose categories (in order) have ``values``."""
    counts = np.asarray(counts, dtype=float)
    values = np.asarray(values, dtype=float)
    clusters = np.asarray(clusters, dtype=np.int64)
    n_clusters = int(clusters.max()) + 1 if clusters.size else 1

    def summed(item_tables: np.ndarray) -> np.ndarray:
        return cluster_sums(item_tables=item_tables, clusters=clusters, n_clusters=n_clusters)

    found = table_estimates(
        statistics={
            "krippendorff_alpha": alpha_statistic(level=level, categories=categories, values=values)
        },
        cluster_tables=summed(_alpha_item_tables(counts)),
        bootstrap=bootstrap,
    )
    alpha = found["krippendorff_alpha"]
    if alpha.value is not None:
        # The package's figure is the published one; the closed form drives the resamples.
        pairable = counts[counts.sum(axis=1) >= 2]
        value = krippendorff.alpha(
            value_counts=pairable, value_domain=list(values), level_of_measurement=level
        )
        found["krippendorff_alpha"] = Estimate(
            value=float(value), n=alpha.n, interval=alpha.interval
        )
    if level in NUMERIC_LEVELS:
        found |= table_estimates(
            statistics={"icc": ICC},
            cluster_tables=summed(_icc_item_tables(counts, values)),
            bootstrap=bootstrap,
        )
    return found
