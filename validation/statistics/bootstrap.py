"""Case-clustered bootstrap intervals.

Criteria of one case (and one case's responses from several models) are correlated, so
resampling criteria as if independent gives intervals that are too narrow. Here whole
clusters (cases) are resampled. A resample is represented by how often each cluster was
drawn (a weight vector); statistics are written as functions of weighted sums of
per-cluster count tables, so thousands of resamples are a single matrix product.
"""

import functools
from collections.abc import Callable

import numpy as np

from benchmark.resampling import cluster_counts, quantiles
from validation.statistics.results import BootstrapSettings, Interval

WeightedStatistic = Callable[[np.ndarray], np.ndarray]


@functools.lru_cache(maxsize=16)
def resample_weights(*, n_clusters: int, resamples: int, seed: int) -> np.ndarray:
    """Draw counts per cluster for each resample (resamples, n_clusters), read-only."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n_clusters, size=(resamples, n_clusters))
    weights = cluster_counts(indices=indices, n_clusters=n_clusters)
    weights.flags.writeable = False
    return weights


@functools.lru_cache(maxsize=16)
def jackknife_weights(*, n_clusters: int) -> np.ndarray:
    """Row i leaves cluster i out (n_clusters, n_clusters), read-only."""
    weights = np.ones((n_clusters, n_clusters))
    np.fill_diagonal(weights, 0.0)
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
    statistic sees the same resamples. BCa where it is defined; otherwise (a degenerate
    bootstrap distribution, or resamples where the statistic is undefined) the percentile
    interval over the resamples where it is defined, with their count recorded.
    """
    point = np.atleast_1d(statistic(np.ones(n_clusters)))
    if n_clusters < 2:
        reason = f"{n_clusters} cluster(s): a bootstrap needs at least two"
        return [_withheld(settings, n_clusters, reason) for _ in point]
    # The resamples and the jackknife depend only on (clusters, resamples, seed): built once
    # and shared by every statistic of a report; each is then one matrix product.
    weights = resample_weights(
        n_clusters=n_clusters, resamples=settings.resamples, seed=settings.seed
    )
    distributions = np.reshape(statistic(weights), (len(point), -1))
    jackknife = np.reshape(statistic(jackknife_weights(n_clusters=n_clusters)), (len(point), -1))
    lows, highs = _bca(point, distributions, jackknife, settings.level)
    return [
        _interval(settings, n_clusters, value, distribution, low, high)
        for value, distribution, low, high in zip(point, distributions, lows, highs, strict=True)
    ]


def _bca(
    point: np.ndarray, distributions: np.ndarray, jackknife: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa bounds per statistic (Efron and Tibshirani 14.3, 15.4), step for step as
    ``scipy.stats.bootstrap(method="BCa")`` computes them, so its figures are kept exactly."""
    from scipy.special import ndtr, ndtri  # deferred: only an interval needs them

    with np.errstate(all="ignore"):  # degenerate distributions are told apart by the caller
        resamples = distributions.shape[-1]
        below = np.count_nonzero(distributions < point[:, None], axis=-1)
        at_most = np.count_nonzero(distributions <= point[:, None], axis=-1)
        z0 = ndtri((below + at_most).astype(float) / (2 * resamples))
        n = float(jackknife.shape[-1])
        spread = (n - 1) * (np.mean(jackknife, axis=-1, keepdims=True) - jackknife)
        skew = np.sum(spread**3, axis=-1) / n**3
        scale = np.sum(spread**2, axis=-1) / n**2
        acceleration = 1 / 6 * skew / scale ** (3 / 2)
        z_alpha = float(ndtri((1 - level) / 2))
        tails = [z0 + z for z in (z_alpha, -z_alpha)]
        probabilities = np.stack([ndtr(z0 + t / (1 - acceleration * t)) for t in tails], axis=-1)
    bounds = quantiles(values=distributions, probabilities=probabilities)
    return bounds[:, 0], bounds[:, 1]


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
