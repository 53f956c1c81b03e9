"""Statistics as functions of additive count tables.

Every statistic here is a ratio of sums over items (confusion cells, coincidences,
per-item agreement), so it is computed from a table summed over items; summing per
cluster first lets the bootstrap re-weight clusters without touching items again.
"""

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from validation.statistics.bootstrap import cluster_bootstrap, tables_statistic
from validation.statistics.proportion import proportion_interval
from validation.statistics.results import BootstrapSettings, Estimate, Interval

Counts = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class TableStatistic:
    name: str
    # (..., *table_shape) -> (...), NaN where the statistic is undefined
    compute: Callable[[np.ndarray], np.ndarray]
    # why one (summed) table gives NaN, in words a report can print
    explain: Callable[[np.ndarray], str]
    # how many observations (pairs, items) the summed table holds
    count: Callable[[np.ndarray], int]
    # a proportion's (successes, trials) from tables (..., *table_shape): its interval is then
    # ``proportion_interval``'s, never of zero width
    proportion: Counts | None = None


def proportion_statistic(
    name: str,
    *,
    successes: Callable[[np.ndarray], np.ndarray],
    trials: Callable[[np.ndarray], np.ndarray],
    explain: Callable[[np.ndarray], str],
    count: Callable[[np.ndarray], int],
) -> TableStatistic:
    """A statistic that is successes / trials, with the proportion's interval."""
    return TableStatistic(
        name,
        lambda c: ratio(successes(c), trials(c)),
        explain,
        count,
        proportion=lambda c: (successes(c), trials(c)),
    )


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0 (never a warning or an inf)."""
    numerator, denominator = np.broadcast_arrays(
        np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    )
    out = np.full(numerator.shape, np.nan)
    # A tolerance, because bootstrap weights make "zero" denominators like 1 − 1.0000000002.
    np.divide(numerator, denominator, out=out, where=np.abs(denominator) > 1e-12)
    return out


def cluster_sums(*, item_tables: np.ndarray, clusters: np.ndarray, n_clusters: int) -> np.ndarray:
    """Sum per-item tables (n_items, ...) into per-cluster tables (n_clusters, ...)."""
    sums = np.zeros((n_clusters, *item_tables.shape[1:]), dtype=float)
    np.add.at(sums, np.asarray(clusters, dtype=np.intp), item_tables)
    return sums


def table_estimates(
    *,
    statistics: Mapping[str, TableStatistic],
    cluster_tables: np.ndarray,
    bootstrap: BootstrapSettings | None = None,
) -> dict[str, Estimate]:
    """Point estimates from the summed table; with ``bootstrap``, cluster-bootstrap intervals
    (a proportion's widened where the bootstrap cannot be trusted: ``proportion_interval``).

    All statistics of one table share one set of resamples, so their intervals are paired
    and the resampling cost is paid once.
    """
    total = cluster_tables.sum(axis=0)
    values = {key: float(s.compute(total)) for key, s in statistics.items()}
    defined = [key for key, value in values.items() if np.isfinite(value)]
    intervals: dict[str, Interval] = {}
    if bootstrap is not None and defined:

        def compute(tables: np.ndarray) -> np.ndarray:
            return np.stack([statistics[key].compute(tables) for key in defined])

        found = cluster_bootstrap(
            statistic=tables_statistic(compute=compute, cluster_tables=cluster_tables),
            n_clusters=cluster_tables.shape[0],
            settings=bootstrap,
        )
        intervals = dict(zip(defined, found, strict=True))
        for key in defined:
            if (counts := statistics[key].proportion) is not None:
                successes, trials = counts(cluster_tables)
                intervals[key] = proportion_interval(
                    successes=successes, trials=trials, bootstrap=intervals[key]
                )
    return {
        key: Estimate(value=values[key], n=s.count(total), interval=intervals.get(key))
        if key in defined
        else Estimate(value=None, n=s.count(total), reason=s.explain(total))
        for key, s in statistics.items()
    }


def label_text(categories: Sequence[Hashable], code: int) -> str:
    return repr(categories[code]) if code < len(categories) else f"category {code}"
