"""Agreement with the gold split by how the gold came about (issue 42): unanimous (3/3), split
(2/1) or adjudicated (a senior decided). A judge agrees more often with a gold the raters
were unanimous on than with one a single dissent nearly overturned; the split shows how much
of the headline agreement rests on the easy items.

Each group's agreement is a proportion, so its interval is ``proportion_interval``'s (via the
pairwise agreement statistic): never of zero width, its method named. A group with no items
is reported with ``agreement`` None and a reason; a group the input cannot tell apart (a
ratings file carries no senior's decisions) is None as a whole, with a reason beside it.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.coding import MISSING
from validation.statistics.pairwise import pairwise_statistics, pairwise_tables
from validation.statistics.results import BootstrapSettings
from validation.statistics.tables import table_estimates

UNANIMOUS, SPLIT, ADJUDICATED = "unanimous", "split", "adjudicated"
PROVENANCES = (UNANIMOUS, SPLIT, ADJUDICATED)
# The gold's own spellings of its provenance (``validation.gold``) under the keys above.
FROM_GOLD = {"3/3": UNANIMOUS, "2/1": SPLIT, "adjudicated": ADJUDICATED}


def provenance_agreement(
    *,
    reference: ArrayLike,
    predicted: ArrayLike,
    provenance: ArrayLike,
    clusters: ArrayLike,
    n_clusters: int,
    categories: tuple,
    bootstrap: BootstrapSettings | None,
    unknown: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Agreement of ``predicted`` with the gold ``reference`` per provenance group.

    ``provenance``: each item's key of ``PROVENANCES`` (any other value: in no group);
    ``unknown``: the groups the input cannot tell apart, each with its reason (those are
    None, their reasons under ``reasons``). Each known group: ``n`` (items with both labels),
    ``agreement`` and ``ci95`` {low, high, method}, and ``reason`` when undefined.
    """
    reference = np.asarray(reference, dtype=np.int64)
    provenance = np.asarray(provenance, dtype=object)
    unknown = dict(unknown or {})
    statistic = {"agreement": pairwise_statistics(categories)["agreement"]}
    section: dict[str, Any] = {}
    for key in PROVENANCES:
        if key in unknown:
            section[key] = None
            continue
        tables = pairwise_tables(
            reference=np.where(provenance == key, reference, MISSING),
            predicted=predicted,
            clusters=clusters,
            n_clusters=n_clusters,
            n_categories=len(categories),
        )
        (estimate,) = table_estimates(
            statistics=statistic, cluster_tables=tables, bootstrap=bootstrap
        ).values()
        group: dict[str, Any] = {"n": estimate.n, "agreement": estimate.value, "ci95": None}
        interval = estimate.interval
        if interval is not None and interval.low is not None:
            group["ci95"] = {"low": interval.low, "high": interval.high, "method": interval.method}
        reason = estimate.reason or (interval.reason if interval is not None else None)
        if reason:
            group["reason"] = reason
        section[key] = group
    if unknown:
        section["reasons"] = unknown
    return section
