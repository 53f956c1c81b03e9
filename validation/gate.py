"""The judge's gate, decided once (pure): the report, the leaderboard badge and the command
line's leaderboard all ask ``gate_decide``.

The outcome of a condition, and of the gate, is one of four words, the same machine key in
every JSON and CSV (the gate, the report, the badge, `heartbench agreement`'s
non-inferiority, the sequential monitor) and the same translated word in every page and table
(``STATUS_WORDS``):

- ``passed``: the interval lies wholly on the passing side of the threshold;
- ``failed``: it lies wholly on the failing side;
- ``undecided``: it straddles the threshold, so more data could still decide either way;
- ``not_enough_data``: there is no figure or interval to decide on (an undefined figure, too
  few gold catastrophic hits, no model scored, a zero-width interval).

A condition is decided from a figure and its 95 % interval by ``condition_decide``:

- ``at_least``: passed when the lower bound reaches the threshold, failed when the upper bound
  stays below it, undecided while the interval straddles it (not enough data without one);
- ``within`` (±threshold around 0): passed when the interval lies inside, failed when it lies
  wholly outside, undecided otherwise.

A zero-width interval (a degenerate bootstrap) decides nothing: not enough data. A proportion's
interval never has zero width (``validation.statistics.proportion``), so this holds back only a
difference whose every resample was the same.

Deciding from the interval alone, never the point estimate, is what lets a sequential design
re-decide a condition at an interim look: it passes a wider interval (a larger critical value)
to the same function.

The overall decision: failed when any condition failed, passed when every condition passed,
otherwise not enough data when some condition had nothing to decide on, else undecided. A
failure is final (more data cannot rescue a bound wholly on the wrong side of its threshold),
so it wins over an open condition.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from django.utils.translation import gettext_lazy

PASSED, FAILED = "passed", "failed"
UNDECIDED, NOT_ENOUGH_DATA = "undecided", "not_enough_data"
STATUSES = (PASSED, FAILED, UNDECIDED, NOT_ENOUGH_DATA)
# The one place the outcomes are worded: every page and terminal table shows these (lazy: in
# the language of the request, English in a command).
STATUS_WORDS = {
    PASSED: gettext_lazy("passed"),
    FAILED: gettext_lazy("failed"),
    UNDECIDED: gettext_lazy("undecided"),
    NOT_ENOUGH_DATA: gettext_lazy("not enough data"),
}
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
    reason: str | None = None  # why not enough data (or undecided), when the figures do not say
    # A score-bias condition in a family of models: how Holm's step-down decided its failure
    # (``score_bias_holm``); None when there is no family (one model, another condition).
    adjusted: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GateDecision:
    decision: str  # one of STATUSES
    config: GateConfig
    conditions: tuple[Condition, ...]
    abilities: tuple[Mapping[str, Any], ...] = field(default=())
    multiplicity: Mapping[str, Any] | None = None  # the score-bias rule across models

    def as_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "rule": RULE,
            "config": self.config.as_dict(),
            "conditions": [c.as_dict() for c in self.conditions],
            "abilities": [dict(a) for a in self.abilities],
            "multiplicity": None if self.multiplicity is None else dict(self.multiplicity),
        }


RULE = (
    "failed if any condition failed; passed if every one passed; else not_enough_data if "
    "any condition had no figure to decide on; else undecided"
)


def status_word(status: str) -> str:
    """The outcome in words (the interface's language), or the key itself when unknown."""
    return str(STATUS_WORDS.get(status, status))


def condition_decide(
    *, value: float | None, low: float | None, high: float | None, threshold: float, direction: str
) -> str:
    """The status of one condition from its figure and interval (see the module docstring)."""
    if value is None or low is None or high is None:
        return NOT_ENOUGH_DATA
    if direction == AT_LEAST:
        if low >= threshold:
            return PASSED
        return FAILED if high < threshold else UNDECIDED
    if direction == WITHIN:
        if -threshold <= low and high <= threshold:
            return PASSED
        return FAILED if low > threshold or high < -threshold else UNDECIDED
    raise ValueError(f"direction must be {AT_LEAST!r} or {WITHIN!r}, not {direction!r}")


def overall_decide(statuses: Iterable[str]) -> str:
    """Failed if any failed, passed if all passed (and there is at least one), else not enough
    data if any had nothing to decide on (or there is none), else undecided."""
    statuses = list(statuses)
    if FAILED in statuses:
        return FAILED
    if statuses and all(s == PASSED for s in statuses):
        return PASSED
    if not statuses or NOT_ENOUGH_DATA in statuses:
        return NOT_ENOUGH_DATA
    return UNDECIDED


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
    conditions, multiplicity = score_bias_holm(conditions, score_bias)
    return GateDecision(
        decision=overall_decide(c.status for c in conditions),
        config=config,
        conditions=tuple(conditions),
        abilities=tuple(abilities),
        multiplicity=multiplicity,
    )


# With several models "any score bias failed" is several tests: Holm's step-down keeps the
# chance that some model is called biased, when none is, at one model's 5 %. A pass needs every
# model inside (an intersection–union test), which holds 5 % as it is: passes are unadjusted.
SCORE_BIAS_FAMILYWISE_ALPHA = 0.05
MULTIPLICITY_RULE = (
    "score bias across models: Holm's step-down at family-wise α (familywise_alpha: 5 %, or a "
    "sequential design's final level) decides the failures (with r models not yet failed, a "
    "model fails when its 1 − α/r interval lies wholly outside ±threshold; one outside on its "
    "own interval only is undecided); passing needs every model's own interval inside, "
    "unadjusted (intersection–union); with one model its own interval alone"
)


def _family_interval(row: Mapping[str, Any], family: int) -> Mapping[str, Any]:
    """A model's judge − gold interval at 1 − α / family (the score effect computes them)."""
    if family == 1:
        return row.get("difference_ci95") or {}
    return next((i for i in row.get("difference_holm") or () if i.get("family") == family), {})


def score_bias_holm(
    conditions: list[Condition], rows: Sequence[Mapping[str, Any]]
) -> tuple[list[Condition], dict[str, Any]]:
    """Holm's step-down across the score-bias conditions that have an interval (the family);
    a model failed at 95 % but not by the step-down becomes undecided. Every family member
    records how it was tested (``adjusted``); one model or none: nothing changes."""
    by_model = {row["model"]: row for row in rows}
    family = {
        c.subject: c
        for c in conditions
        if c.name == SCORE_BIAS and c.subject in by_model and c.status != NOT_ENOUGH_DATA
    }
    m = len(family)
    # The family-wise α is the decisive interval's (5 %, or a sequential design's final one).
    alpha = next(
        (i["alpha"] for row in rows for i in row.get("difference_holm") or () if "alpha" in i),
        SCORE_BIAS_FAMILYWISE_ALPHA,
    )
    rule = {
        "rule": "holm",
        "conditions": SCORE_BIAS,
        "familywise_alpha": alpha,
        "models": m,
        "adjusted": m > 1,
        "text": MULTIPLICITY_RULE,
    }
    if m < 2:
        return conditions, rule

    def outside(model: str, r: int) -> bool:
        c, interval = family[model], _family_interval(by_model[model], r)
        low, high = interval.get("low"), interval.get("high")
        return (
            c.status == FAILED
            and low is not None
            and high is not None
            and condition_decide(
                value=c.value, low=low, high=high, threshold=c.threshold, direction=WITHIN
            )
            == FAILED
        )

    # Deferred: the statistics package imports this module's condition rules.
    from validation.statistics.holm import holm_step_down

    fallen = holm_step_down(tests=list(family), rejects=outside)
    still_open = m - len(fallen)

    def adjust(c: Condition) -> Condition:
        if c.subject not in family or c.name != SCORE_BIAS:
            return c
        r = fallen.get(c.subject, still_open)
        level = 1 - alpha / r
        interval = _family_interval(by_model[c.subject], r)
        low, high = interval.get("low"), interval.get("high")
        adjusted = {"rule": "holm", "family": m, "open": r, "level": level, "low": low,
                    "high": high, "unadjusted_status": c.status}  # fmt: skip
        if c.status != FAILED or c.subject in fallen:
            return replace(c, adjusted=adjusted)
        shown = "none" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"
        reason = (
            f"outside ±{c.threshold:g} on its own interval but not after Holm's step-down across "
            f"{m} models: its {level:.2%} interval {shown} is not wholly outside"
        )
        return replace(c, status=UNDECIDED, reason=reason, adjusted=adjusted)

    return [adjust(c) for c in conditions], rule
