"""The judge's gate, decided once (pure): the report, the leaderboard badge and the command
line's leaderboard all ask this function."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GateDecision:
    threshold: float
    # The agreement's point estimate reaches the threshold (None: no figure to decide on).
    passed: bool | None
    # Its lower 95 % bound reaches it too. Passing on the point estimate while the interval
    # reaches below the threshold is a pass the data cannot confirm yet (None: no figure, or
    # no interval).
    confirmed: bool | None


def gate_decide(*, agreement: Mapping[str, Any], threshold: float) -> GateDecision:
    """Decide the gate from an agreement figure (``report.compute.figure``: value, low, …)."""
    threshold = float(threshold)
    value = agreement.get("value")
    passed = None if value is None else value >= threshold
    low = agreement.get("low")
    confirmed = None if passed is None or low is None else bool(low >= threshold)
    return GateDecision(threshold=threshold, passed=passed, confirmed=confirmed)
