"""Case-clustered bootstrap intervals.

Criteria of one case (and one case's responses from several models) are correlated, so
resampling criteria as if independent gives intervals that are too narrow. Here whole
clusters (cases) are resampled. A resample is represented by how often each cluster was
drawn (a weight vector); statistics are written as functions of weighted sums of
per-cluster count tables, so thousands of resamples are a single matrix product.
"""

import functools
import warnings
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np

from validation.statistics.results import BootstrapSettings, Interval

WeightedStatistic = Callable[[np.ndarray], np.ndarray]


def cluster_weights(*, indices: np.ndarray, n_clusters: int) -> np.ndarray:
    """Turn drawn cluster indices (..., m) into draw counts per cluster (..., n_clusters)."""
    indices = np.asarray(indices, dtype=np.intp)
    flat = indices.reshape(-1, indices.shape[-1])
    offsets = (np.arange(flat.shape[0], dtype=np.intp) * n_clusters)[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * n_clusters)
    return counts.reshape((*indices.shape[:-1], n_clusters)).astype(float)


@functools.lru_cache(maxsize=16)
def resample_weights(*, n_clusters: int, resamples: int, seed: int) -> np.ndarray:
    """Draw counts per cluster for each resample (resamples, n_clusters), read-only."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n_clusters, size=(resamples, n_clusters))
    weights = cluster_weights(indices=indices, n_clusters=n_clusters)
    weights.flags.writeable = False
    return weights


def tables_statistic(
    *, compute: Callable[[np.ndarray], np.ndarray], cluster_tables: np.ndarray
) -> WeightedStatistic:
    """A weighted statistic from per-cluster additive tables (n_clusters, *table_shape)."""

    def statistic(weights: np.ndarray) -> np.ndarray:
        return compute(np.tensordot(weights, cluster_tables, axes=([-1], [0])))

    return statistic


def cluster_bootstrap(
    *, statistic: WeightedStatistic, n_clusters: int, settings: BootstrapSettings
) -> list[Interval]:
    """Intervals of m statistics at once by resampling whole clusters.

    ``statistic`` maps cluster weights (..., n_clusters) to values (m, ...); every
    statistic sees the same resamples. BCa through ``scipy.stats.bootstrap`` where it is
    defined; otherwise (a degenerate bootstrap distribution, or resamples where the
    statistic is undefined) the percentile interval over the resamples where it is
    defined, with their count recorded.
    """
    point = np.atleast_1d(statistic(np.ones(n_clusters)))
    if n_clusters < 2:
        reason = f"{n_clusters} cluster(s): a bootstrap needs at least two"
        return [_withheld(settings, n_clusters, reason) for _ in point]

    def on_indices(indices: np.ndarray, axis: int = -1) -> np.ndarray:
        return statistic(cluster_weights(indices=indices, n_clusters=n_clusters))

    # The resamples depend only on (clusters, resamples, seed): drawn once and shared by every
    # statistic of a report, then handed to scipy, which adds the BCa correction (from the
    # jackknife over clusters) to that distribution.
    drawn = SimpleNamespace(
        bootstrap_distribution=statistic(
            resample_weights(
                n_clusters=n_clusters, resamples=settings.resamples, seed=settings.seed
            )
        )
    )
    from scipy import stats  # deferred: a second to import, and only the interval needs it

    with warnings.catch_warnings():
        # Degenerate or partly undefined distributions are detected below from the values.
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            (np.arange(n_clusters),),
            on_indices,
            n_resamples=0,
            bootstrap_result=drawn,
            vectorized=True,
            method="BCa",
            confidence_level=settings.level,
        )
    distributions = np.asarray(result.bootstrap_distribution, dtype=float).reshape(len(point), -1)
    lows = np.atleast_1d(result.confidence_interval.low)
    highs = np.atleast_1d(result.confidence_interval.high)
    return [
        _interval(settings, n_clusters, value, distribution, low, high)
        for value, distribution, low, high in zip(point, distributions, lows, highs, strict=True)
    ]


def _interval(
    settings: BootstrapSettings,
    n_clusters: int,
    point: float,
    distribution: np.ndarray,
    low: float,
    high: float,
) -> Interval:
    if not np.isfinite(point):
        return _withheld(settings, n_clusters, "the statistic is undefined on the full sample")
    finite = distribution[np.isfinite(distribution)]
    undefined = int(distribution.size - finite.size)
    if undefined == 0 and np.isfinite(low) and np.isfinite(high):
        method = "BCa"
    elif undefined > settings.max_undefined_share * distribution.size:
        reason = f"the statistic is undefined in {undefined} of {distribution.size} resamples"
        return _withheld(settings, n_clusters, reason, undefined)
    else:
        tail = (1 - settings.level) / 2 * 100
        low, high = np.percentile(finite, [tail, 100 - tail])
        method = "percentile"
    return Interval(
        low=float(low),
        high=float(high),
        method=method,
        level=settings.level,
        resamples=settings.resamples,
        seed=settings.seed,
        clusters=n_clusters,
        undefined_resamples=undefined,
    )


def _withheld(
    settings: BootstrapSettings, n_clusters: int, reason: str, undefined: int = 0
) -> Interval:
    return Interval(
        low=None,
        high=None,
        method=None,
        level=settings.level,
        resamples=settings.resamples,
        seed=settings.seed,
        clusters=n_clusters,
        undefined_resamples=undefined,
        reason=reason,
    )
