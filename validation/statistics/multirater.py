"""Agreement among any number of raters with missing ratings, from per-item category counts.

Each item contributes a small vector of additive sums (below); every coefficient is a
function of their totals, so the cluster bootstrap re-weights per-case sums.

* percent agreement: mean over items with ≥ 2 ratings of the share of agreeing rater pairs;
* Fleiss' κ: that, corrected by chance from the pooled category shares — defined only when
  every rated item has the same number of ratings (Fleiss, 1971);
* Gwet's AC1, multi-rater form with missing ratings (Gwet, 2014, as irrCAC computes it);
* Krippendorff's α, nominal, from the coincidence matrix (Krippendorff, 2011). The point
  estimate comes from the ``krippendorff`` package; the closed form here, used for resamples,
  is cross-checked against it in the tests.
"""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import krippendorff
import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.results import BootstrapSettings, Estimate
from validation.statistics.tables import (
    TableStatistic,
    cluster_sums,
    proportion_statistic,
    ratio,
    table_estimates,
)


class _Layout:
    """Positions of the per-item sums in a table row, for K categories."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.pairable = 0  # items with ≥ 2 ratings
        self.agreement = 1  # Σ share of agreeing pairs, over pairable items
        self.rated = 2  # items with ≥ 1 rating
        self.shares = slice(3, 3 + k)  # Σ r_ik / r_i over rated items
        self.coincidence = 3 + k  # Σ_c o_cc: same-category coincidences
        self.values = slice(4 + k, 4 + 2 * k)  # pairable values per category
        self.width = 4 + 2 * k


def multirater_item_tables(*, counts: ArrayLike) -> np.ndarray:
    """Per-item additive sums (n_items, 4 + 2K) from category counts (n_items, K)."""
    counts = np.asarray(counts, dtype=float)
    layout = _Layout(counts.shape[1])
    ratings = counts.sum(axis=1)
    pairable = ratings >= 2
    same = (counts * (counts - 1)).sum(axis=1)
    tables = np.zeros((counts.shape[0], layout.width))
    tables[:, layout.pairable] = pairable
    tables[:, layout.agreement] = np.where(pairable, ratio(same, ratings * (ratings - 1)), 0)
    tables[:, layout.rated] = ratings >= 1
    tables[:, layout.shares] = np.where(ratings[:, None] >= 1, ratio(counts, ratings[:, None]), 0)
    tables[:, layout.coincidence] = np.where(pairable, ratio(same, ratings - 1), 0)
    tables[:, layout.values] = np.where(pairable[:, None], counts, 0)
    return tables


def _chance_corrected(layout: _Layout, chance_of):
    def compute(t: np.ndarray) -> np.ndarray:
        shares = ratio(t[..., layout.shares], t[..., layout.rated, None])
        observed = ratio(t[..., layout.agreement], t[..., layout.pairable])
        chance = chance_of(shares)
        return ratio(observed - chance, 1 - chance)

    return compute


def _alpha(layout: _Layout):
    def compute(t: np.ndarray) -> np.ndarray:
        values = t[..., layout.values]
        n = values.sum(axis=-1)
        expected = n**2 - (values**2).sum(axis=-1)
        return 1 - ratio((n - 1) * (n - t[..., layout.coincidence]), expected)

    return compute


def multirater_statistics(categories: Sequence[Hashable]) -> dict[str, TableStatistic]:
    """Multi-rater coefficients for a category scheme, keyed by report name."""
    layout = _Layout(len(categories))
    k = layout.k

    def pairable(t: np.ndarray) -> int:
        return round(float(t[layout.pairable]))

    def values(t: np.ndarray) -> int:
        return round(float(t[layout.values].sum()))

    def nothing_pairable(t: np.ndarray) -> str | None:
        return "no item has two or more ratings" if t[layout.pairable] == 0 else None

    def single_category(t: np.ndarray) -> str:
        used = [repr(categories[j]) for j in range(k) if t[layout.shares][j] > 0]
        return nothing_pairable(t) or f"chance agreement is 1: every rating is {', '.join(used)}"

    def too_few_categories(t: np.ndarray) -> str:
        return nothing_pairable(t) or f"{k} category in the scheme: at least two are needed"

    def one_value_category(t: np.ndarray) -> str:
        if values(t) == 0:
            return "no pairable values (no item has two or more ratings)"
        used = [repr(categories[j]) for j in range(k) if t[layout.values][j] > 0]
        return f"expected disagreement is 0: every pairable value is {', '.join(used)}"

    def gwet_chance(shares: np.ndarray) -> np.ndarray:
        if k < 2:
            return np.full(shares.shape[:-1], np.nan)
        return (shares * (1 - shares)).sum(axis=-1) / (k - 1)

    return {
        # Each pairable item's share of agreeing pairs is its "success", in [0, 1].
        "percent_agreement": proportion_statistic(
            "percent agreement",
            successes=lambda t: t[..., layout.agreement],
            trials=lambda t: t[..., layout.pairable],
            explain=nothing_pairable,
            count=pairable,
        ),
        "fleiss_kappa": TableStatistic(
            "Fleiss' κ",
            _chance_corrected(layout, lambda shares: (shares**2).sum(axis=-1)),
            single_category,
            pairable,
        ),
        "gwet_ac1": TableStatistic(
            "Gwet's AC1", _chance_corrected(layout, gwet_chance), too_few_categories, pairable
        ),
        "krippendorff_alpha": TableStatistic(
            "Krippendorff's α (nominal)", _alpha(layout), one_value_category, values
        ),
    }


@dataclass(frozen=True)
class RaterReliability:
    n_items: int
    percent_agreement: Estimate
    krippendorff_alpha: Estimate
    fleiss_kappa: Estimate
    gwet_ac1: Estimate


def krippendorff_alpha_nominal(*, counts: ArrayLike) -> float | None:
    """Nominal α by the ``krippendorff`` package from category counts (n_items, K).

    ``None`` where α is undefined (fewer than two pairable values, or one category only).
    """
    counts = np.asarray(counts, dtype=float)
    pairable = counts[counts.sum(axis=1) >= 2]
    totals = pairable.sum(axis=0)
    if counts.shape[1] < 2 or (totals > 0).sum() < 2:
        return None
    return float(krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"))


def rater_reliability(
    *,
    counts: ArrayLike,
    categories: Sequence[Hashable],
    clusters: ArrayLike | None = None,
    bootstrap: BootstrapSettings | None = None,
) -> RaterReliability:
    """Agreement among raters from per-item category counts (n_items, K).

    Items rated once count for the category shares (AC1) but not for agreement; Fleiss' κ
    is ``None`` when items differ in their number of ratings.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if clusters is None:
        clusters = np.arange(counts.shape[0])
    clusters = np.asarray(clusters, dtype=np.int64)
    n_clusters = int(clusters.max()) + 1 if clusters.size else 1
    tables = cluster_sums(
        item_tables=multirater_item_tables(counts=counts),
        clusters=clusters,
        n_clusters=n_clusters,
    )
    statistics = multirater_statistics(categories)
    ratings = counts.sum(axis=1)
    per_item = np.unique(ratings[ratings > 0])
    if len(per_item) > 1:
        # Fleiss' chance term assumes every item rated by the same number of raters.
        del statistics["fleiss_kappa"]
    found = table_estimates(statistics=statistics, cluster_tables=tables, bootstrap=bootstrap)
    alpha = found["krippendorff_alpha"]
    if alpha.value is not None:
        # The package's figure is the published one; the closed form (equal to it, as the
        # tests check) only drives the resamples.
        found["krippendorff_alpha"] = Estimate(
            value=krippendorff_alpha_nominal(counts=counts), n=alpha.n, interval=alpha.interval
        )
    fleiss = found.get("fleiss_kappa") or Estimate(
        value=None,
        n=int((ratings >= 2).sum()),
        reason=(
            "items differ in their number of ratings "
            f"({', '.join(str(int(r)) for r in per_item)}), which Fleiss' κ does not allow"
        ),
    )
    return RaterReliability(
        n_items=int((ratings > 0).sum()),
        percent_agreement=found["percent_agreement"],
        krippendorff_alpha=found["krippendorff_alpha"],
        fleiss_kappa=fleiss,
        gwet_ac1=found["gwet_ac1"],
    )
