"""Bootstrap resamples and quantiles in numpy alone, so an interval does not import ``scipy.stats``.

Importing ``scipy.stats`` takes seconds on a cold process; the intervals of the leaderboard and
of the study report need from it only the quantile of a bootstrap distribution. This is
``scipy.stats.quantile``'s default method ('linear', Hyndman and Fan's type 7) with its
arithmetic, so the figures are the ones ``scipy.stats.bootstrap`` gave to the last digit.
"""

import numpy as np


def cluster_counts(*, indices: np.ndarray, n_clusters: int) -> np.ndarray:
    """Turn drawn cluster indices (..., m) into draw counts per cluster (..., n_clusters)."""
    indices = np.asarray(indices, dtype=np.intp)
    flat = indices.reshape(-1, indices.shape[-1])
    offsets = (np.arange(flat.shape[0], dtype=np.intp) * n_clusters)[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * n_clusters)
    return counts.reshape((*indices.shape[:-1], n_clusters)).astype(float)


def quantiles(*, values: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (m, B), its quantiles at that row's ``probabilities`` (m, k).

    NaN where the row holds a NaN, and where a probability is NaN or outside [0, 1].
    """
    rows = np.sort(np.asarray(values, dtype=float), axis=-1)
    p = np.asarray(probabilities, dtype=float)
    invalid = np.isnan(p) | (p < 0) | (p > 1)
    p = np.where(invalid, 0.5, p)
    n = float(rows.shape[-1])
    position = p * n + (1 - p)
    upper = position // 1
    lower = upper - 1
    fraction = np.where(lower < 0, 0.0, position % 1)
    below = np.take_along_axis(rows, np.clip(lower, 0.0, n - 1).astype(np.int64), axis=-1)
    above = np.take_along_axis(rows, np.clip(upper, 0.0, n - 1).astype(np.int64), axis=-1)
    with np.errstate(invalid="ignore"):
        found = (1 - fraction) * below + fraction * above
    found[np.isnan(rows).any(axis=-1)] = np.nan
    found[invalid] = np.nan
    return found
