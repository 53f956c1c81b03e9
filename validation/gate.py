"""The judge's gate, decided once (pure): the report, the leaderboard badge and the command
line's leaderboard all ask ``gate_decide``.

A gate is a list of conditions, each decided from a figure and its 95 % interval by
``condition_decide``:

- ``at_least``: passed when the lower bound reaches the threshold, failed when the upper bound
  stays below it, not enough data while the interval straddles it (or there is none);
- ``within`` (±threshold around 0): passed when the interval lies inside, failed when it lies
  wholly outside, not enough data otherwise.

A zero-width interval (a degenerate bootstrap) decides nothing: not enough data. A proportion's
interval never has zero width (``validation.statistics.proportion``), so this holds back only a
difference whose every resample was the same.

Deciding from the interval alone, never the point estimate, is what lets a sequential design
re-decide a condition at an interim look: it passes a wider interval (a larger critical value)
to the same function.

The overall decision: failed when any condition failed, passed when every condition passed,
otherwise not enough data. A failure is final (more data cannot rescue a bound wholly on the
wrong side of its threshold), so it wins over an undecided condition.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

PASSED, FAILED, NOT_ENOUGH_DATA = "passed", "failed", "not_enough_data"
STATUSES = (PASSED, FAILED, NOT_ENOUGH_DATA)
AT_LEAST, WITHIN = "at_least", "within"

AGREEMENT = "agreement"
NONINFERIORITY = "noninferiority"
CATASTROPHIC_RECALL = "catastrophic_recall"
SCORE_BIAS = "score_bias"
CONDITIONS = (AGREEMENT, NONINFERIORITY, CATASTROPHIC_RECALL, SCORE_BIAS)


@dataclass(frozen=True)
class GateConfig:
    """One study's gate; the defaults are the reviewer's (issue 17) and the HeartBench 75 %."""

    agreement_min: float = 0.75  # lower 95 % bound of item agreement with the gold
    noninferiority_margin: float = 0.05  # lower bound of judge − experts (macro-F1) ≥ −margin
    catastrophic_recall_min: float = 0.8
    catastrophic_min_hits: int = 10  # gold catastrophic hits below this: not enough data
    score_bias_max: float = 5.0  # judge − gold score per model within ±this, in points

    def problem(self) -> str | None:
        """Why this configuration cannot be a gate (None when it can)."""
        for name in ("agreement_min", "noninferiority_margin", "catastrophic_recall_min"):
            if not 0 <= getattr(self, name) <= 1:
                return f"{name} must be between 0 and 1, got {getattr(self, name)}"
        if self.catastrophic_min_hits < 0:
            return f"catastrophic_min_hits must be 0 or more, got {self.catastrophic_min_hits}"
        if not 0 <= self.score_bias_max <= 100:
            return f"score_bias_max must be between 0 and 100 points, got {self.score_bias_max}"
        return None

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "GateConfig":
        return cls(**{k: values[k] for k in cls.__dataclass_fields__ if k in values})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Condition:
    name: str  # one of CONDITIONS
    status: str  # one of STATUSES
    value: float | None
    low: float | None
    high: float | None
    threshold: float
    direction: str  # AT_LEAST or WITHIN
    subject: str | None = None  # the model of a score-bias condition
    reason: str | None = None  # why not enough data, when the figures alone do not say

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GateDecision:
    decision: str  # one of STATUSES
    config: GateConfig
    conditions: tuple[Condition, ...]
    abilities: tuple[Mapping[str, Any], ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "rule": "failed if any condition failed; passed if every one passed; "
            "else not_enough_data",
            "config": self.config.as_dict(),
            "conditions": [c.as_dict() for c in self.conditions],
            "abilities": [dict(a) for a in self.abilities],
        }


def condition_decide(
    *, value: float | None, low: float | None, high: float | None, threshold: float, direction: str
) -> str:
    """The status of one condition from its figure and interval (see the module docstring)."""
    if value is None or low is None or high is None:
        return NOT_ENOUGH_DATA
    if direction == AT_LEAST:
        if low >= threshold:
            return PASSED
        return FAILED if high < threshold else NOT_ENOUGH_DATA
    if direction == WITHIN:
        if -threshold <= low and high <= threshold:
            return PASSED
        return FAILED if low > threshold or high < -threshold else NOT_ENOUGH_DATA
    raise ValueError(f"direction must be {AT_LEAST!r} or {WITHIN!r}, not {direction!r}")


def overall_decide(statuses: Iterable[str]) -> str:
    """Failed if any failed, passed if all passed (and there is at least one), else undecided."""
    statuses = list(statuses)
    if FAILED in statuses:
        return FAILED
    if statuses and all(s == PASSED for s in statuses):
        return PASSED
    return NOT_ENOUGH_DATA


def _condition(
    name: str,
    *,
    value: float | None,
    interval: Mapping[str, Any] | None,
    threshold: float,
    direction: str,
    subject: str | None = None,
    reason: str | None = None,
    veto: str | None = None,
) -> Condition:
    interval = interval or {}
    low, high = interval.get("low"), interval.get("high")
    if veto is None and low is not None and high is not None and high <= low:
        # Every resample gave one value (a proportion's interval is never this narrow, see
        # validation.statistics.proportion): a bound that is no interval decides nothing.
        veto = f"the interval has zero width ({interval.get('method')}): it decides nothing"
    status = (
        NOT_ENOUGH_DATA
        if veto
        else condition_decide(
            value=value, low=low, high=high, threshold=threshold, direction=direction
        )
    )
    if status == NOT_ENOUGH_DATA and not veto and reason is None:
        reason = interval.get("reason") or interval.get("interval_reason")
    return Condition(
        name=name,
        status=status,
        value=value,
        low=low,
        high=high,
        threshold=threshold,
        direction=direction,
        subject=subject,
        reason=veto or reason,
    )


def gate_decide(
    *,
    config: GateConfig,
    agreement: Mapping[str, Any],
    noninferiority: Mapping[str, Any],
    catastrophic: Mapping[str, Any],
    score_bias: Sequence[Mapping[str, Any]],
    abilities: Sequence[Mapping[str, Any]] = (),
) -> GateDecision:
    """Decide the gate from the study report's figures of one judge.

    ``agreement``: a ``report.compute.figure`` (value, low, high); ``noninferiority``: the
    ``NonInferiority.as_dict`` shape (difference, ci95); ``catastrophic``: gold_hits and a
    ``recall_hit`` figure; ``score_bias``: per model, model, difference (judge − gold) and
    difference_ci95; ``abilities``: the per-ability flags, carried along, not decided on.
    """
    hits = int(catastrophic.get("gold_hits") or 0)
    recall = catastrophic.get("recall_hit") or {}
    conditions = [
        _condition(
            AGREEMENT,
            value=agreement.get("value"),
            interval=agreement,
            threshold=config.agreement_min,
            direction=AT_LEAST,
            reason=agreement.get("reason"),
        ),
        _condition(
            NONINFERIORITY,
            value=noninferiority.get("difference"),
            interval=noninferiority.get("ci95"),
            threshold=-config.noninferiority_margin,
            direction=AT_LEAST,
            reason=noninferiority.get("reason"),
        ),
        _condition(
            CATASTROPHIC_RECALL,
            value=recall.get("value"),
            interval=recall,
            threshold=config.catastrophic_recall_min,
            direction=AT_LEAST,
            reason=recall.get("reason"),
            veto=None
            if hits >= config.catastrophic_min_hits
            else f"{hits} gold catastrophic hit(s); the gate needs {config.catastrophic_min_hits}",
        ),
    ]
    conditions += [
        _condition(
            SCORE_BIAS,
            value=row.get("difference"),
            interval=row.get("difference_ci95"),
            threshold=config.score_bias_max,
            direction=WITHIN,
            subject=row["model"],
        )
        for row in score_bias
    ]
    if not score_bias:
        conditions.append(
            _condition(
                SCORE_BIAS,
                value=None,
                interval=None,
                threshold=config.score_bias_max,
                direction=WITHIN,
                veto="no model scored",
            )
        )
    return GateDecision(
        decision=overall_decide(c.status for c in conditions),
        config=config,
        conditions=tuple(conditions),
        abilities=tuple(abilities),
    )
