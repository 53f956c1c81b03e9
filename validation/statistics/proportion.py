"""A proportion's interval never has zero width (issue 42): the one rule, for every proportion
(agreement, recall, precision) wherever it is shown or decided on.

The case bootstrap fails a proportion exactly where a gate needs it most. At 0 or 1 every
resample gives the same value, so 10 of 10 catastrophes caught came out as [1, 1]; near them
the resampled distribution is lumpy and too narrow; with few clusters it has few values. There
the interval is the wider of the bootstrap's and the exact Clopper–Pearson interval at the
clusters' effective size n / deff (Korn & Graubard 1998), deff being Kish's design effect from
the clustered variance (never below 1). Elsewhere the bootstrap interval stands as it is.
"""

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.results import Interval

# Fewer clusters holding trials than this and the bootstrap is not trusted alone: its
# distribution has too few distinct values to place a 2.5 % tail.
FEW_CLUSTERS = 30
# Effective successes or failures below this: the proportion is near 0 or 1, where the
# bootstrap interval is too narrow (the usual np ≥ 5 rule of thumb, on the effective n).
NEAR_BOUNDARY = 5.0


def design_effect(*, successes: ArrayLike, trials: ArrayLike) -> float:
    """Kish's design effect of a ratio of per-cluster sums: its clustered (linearised)
    variance over the binomial one, Σ (x_c − p n_c)² / (n p (1 − p)), never below 1 — and
    1 at p = 0 or 1, where the clusters show no variation to measure."""
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    n = trials.sum()
    p = successes.sum() / n
    binomial = n * p * (1 - p)
    if binomial <= 0:
        return 1.0
    return max(1.0, float(((successes - p * trials) ** 2).sum() / binomial))


def clopper_pearson(*, successes: float, trials: float, level: float) -> tuple[float, float]:
    """Exact binomial bounds from beta quantiles; effective (non-integer) counts allowed."""
    from scipy.special import betaincinv  # deferred, as in the bootstrap: only an interval needs it

    tail = (1 - level) / 2
    failures = trials - successes
    low = 0.0 if successes <= 0 else float(betaincinv(successes, failures + 1, tail))
    high = 1.0 if failures <= 0 else float(betaincinv(successes + 1, failures, 1 - tail))
    return low, high


def proportion_interval(
    *, successes: ArrayLike, trials: ArrayLike, bootstrap: Interval
) -> Interval:
    """The interval of the proportion Σ successes / Σ trials, from per-cluster counts and the
    cluster bootstrap's interval of it (see the module docstring)."""
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    clusters = int(np.count_nonzero(trials > 0))
    if clusters < 2:  # the bootstrap has withheld it already, unless told to be lenient
        reason = f"trials in {clusters} cluster(s): an interval needs at least two"
        withheld = replace(bootstrap, low=None, high=None, method=None, reason=reason)
        return bootstrap if bootstrap.low is None else withheld
    deff = design_effect(successes=successes, trials=trials)
    n = trials.sum() / deff
    x = successes.sum() / trials.sum() * n
    sound = bootstrap.method == "BCa" and bootstrap.high > bootstrap.low
    if sound and clusters >= FEW_CLUSTERS and min(x, n - x) >= NEAR_BOUNDARY:
        return bootstrap
    low, high = clopper_pearson(successes=x, trials=n, level=bootstrap.level)
    if bootstrap.low is not None and bootstrap.high - bootstrap.low >= high - low:
        return bootstrap
    return replace(
        bootstrap,
        low=low,
        high=high,
        method="clopper-pearson-clustered" if deff > 1 else "clopper-pearson",
        reason=None,
        design_effect=deff,
    )
