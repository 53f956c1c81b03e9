"""Per-group agreement below a threshold, with Holm's correction across the groups (pure).

Test of one group: H0 "agreement ≥ threshold" against "agreement < threshold", one-sided z
on the agreement as a ratio of per-cluster sums, with the cluster-robust (linearised) standard
error — items of one case move together, as everywhere in the report. Holm's step-down keeps
the family-wise error at ``alpha`` across the groups tested; groups with fewer than two
clusters are reported without a test and left out of the family.

``holm_step_down`` is the same step-down on tests decided by intervals: the gate's rule for
the score-bias conditions across models (``validation.gate``).
"""

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

T = TypeVar("T")


@dataclass(frozen=True)
class BelowTest:
    group: str
    n: int  # items
    clusters: int
    value: float | None
    p_value: float | None  # one-sided, before correction
    p_holm: float | None
    flagged: bool  # agreement significantly below the threshold after Holm

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def holm_adjust(p_values: ArrayLike) -> np.ndarray:
    """Holm's step-down adjusted p-values (monotone, capped at 1), in the input order."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def holm_step_down(*, tests: Sequence[T], rejects: Callable[[T, int], bool]) -> dict[T, int]:
    """Holm's step-down written on the tests instead of their p-values: ``rejects(test, r)``
    says whether ``test`` rejects at level α / r (for an interval: whether its 1 − α / r
    interval lies wholly on the rejecting side). With r tests not yet rejected, every one
    that rejects at α / r is rejected; r shrinks by as many, and the step repeats until none
    does. This rejects exactly the tests whose Holm-adjusted p-value is at most α (the one
    with p ≤ α / r is the next in p-order). Returns each rejected test → the r it fell at."""
    open_tests, rejected = list(tests), {}
    while open_tests:
        r = len(open_tests)
        falling = [t for t in open_tests if rejects(t, r)]
        if not falling:
            break
        rejected |= dict.fromkeys(falling, r)
        open_tests = [t for t in open_tests if t not in rejected]
    return rejected


def _p_below(agree: np.ndarray, clusters: np.ndarray, threshold: float) -> tuple[float, float]:
    _, index = np.unique(clusters, return_inverse=True)
    sums = np.bincount(index, weights=agree.astype(float))
    sizes = np.bincount(index).astype(float)
    c = sums.size
    value = sums.sum() / sizes.sum()
    residual = sums - value * sizes
    se = np.sqrt(c / (c - 1) * (residual**2).sum()) / sizes.sum()
    if se == 0:
        return float(value), 0.0 if value < threshold else 1.0
    from scipy.special import ndtr  # deferred; scipy.stats.norm.cdf is this, without the stats

    return float(value), float(ndtr((value - threshold) / se))


def agreement_below_holm(
    *,
    groups: dict[str, tuple[ArrayLike, ArrayLike]],
    threshold: float,
    alpha: float = 0.05,
) -> list[BelowTest]:
    """``groups``: name → (agree per item as booleans, cluster per item)."""
    tests: list[tuple[str, int, int, float | None, float | None]] = []
    for name, (agree, clusters) in groups.items():
        agree, clusters = np.asarray(agree, dtype=bool), np.asarray(clusters)
        n_clusters = int(np.unique(clusters).size)
        if n_clusters >= 2:
            value, p = _p_below(agree, clusters, threshold)
        else:
            value, p = (float(agree.mean()) if agree.size else None), None
        tests.append((name, int(agree.size), n_clusters, value, p))
    family = [p for *_, p in tests if p is not None]
    adjusted = iter(holm_adjust(family))
    results = []
    for name, n, n_clusters, value, p in tests:
        p_holm = None if p is None else float(next(adjusted))
        results.append(
            BelowTest(
                group=name,
                n=n,
                clusters=n_clusters,
                value=value,
                p_value=p,
                p_holm=p_holm,
                flagged=p_holm is not None and p_holm < alpha,
            )
        )
    return results
