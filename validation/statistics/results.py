"""Result objects shared by every agreement statistic.

A statistic that cannot be computed (one category only, nothing pairable) is an
``Estimate`` with ``value=None`` and a ``reason``: reports print the reason instead of
a number, and nothing downstream mistakes an undefined figure for perfect agreement.
"""

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class BootstrapSettings:
    """How intervals are computed; recorded beside every interval so it can be reproduced."""

    resamples: int = 2000
    seed: int = 20251226
    level: float = 0.95
    # A percentile interval over the resamples where the statistic is defined is only
    # honest while those are nearly all of them; past this share the interval is withheld.
    max_undefined_share: float = 0.1


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    # "BCa", "percentile", a proportion's "clopper-pearson" (or "clopper-pearson-clustered"
    # when the clusters' design effect shrank n), or None when withheld
    method: str | None
    level: float
    resamples: int
    seed: int
    clusters: int
    undefined_resamples: int = 0
    reason: str | None = None
    design_effect: float | None = None  # of a Clopper–Pearson interval: n / deff was its n

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "low": self.low,
            "high": self.high,
            "method": self.method,
            "level": self.level,
            "resamples": self.resamples,
            "seed": self.seed,
            "clusters": self.clusters,
            "undefined_resamples": self.undefined_resamples,
        }
        if self.reason is not None:
            data["reason"] = self.reason
        if self.design_effect is not None:
            data["design_effect"] = self.design_effect
        return data


@dataclass(frozen=True)
class Estimate:
    value: float | None
    n: int
    reason: str | None = None
    interval: Interval | None = None

    @property
    def defined(self) -> bool:
        return self.value is not None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"value": self.value, "n": self.n}
        if self.reason is not None:
            data["reason"] = self.reason
        if self.interval is not None:
            data["ci95" if self.interval.level == 0.95 else "interval"] = self.interval.as_dict()
        return data


def spread_or_withheld(interval: Interval | None) -> Interval | None:
    """A zero-width interval withheld: when every resample of cases gives the same figure (the
    cases all chose alike), the bootstrap says nothing about its uncertainty. (A proportion's
    never has zero width: ``validation.statistics.proportion``.)"""
    if interval is None or interval.low is None:
        return interval
    if interval.high - interval.low > 1e-12 * max(1.0, abs(interval.high)):
        return interval
    reason = "every resample of cases gives the same figure: the cases do not vary"
    return replace(interval, low=None, high=None, method=None, reason=reason)
