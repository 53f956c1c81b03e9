"""Group-sequential monitoring of a study's gate conditions (pure: no database).

A study may look at its gate every k completed cases and stop once every condition is
decided. Looking repeatedly at a 95 % interval would decide a condition whose true value sits
on its threshold far more often than 5 % of the time; here each look uses a wider interval,
value ± c_k · SE, with critical values c_k from Lan–DeMets alpha spending with the
O'Brien–Fleming-type function, spent on each side with half of α as ldbounds, gsDesign
(``sfLDOF``) and rpact (``asOF``) do for symmetric two-sided bounds:

    α_side(t) = 2 − 2 Φ(z_{1−α/4} / √t),   t = completed cases / planned cases,

so that over all looks actually taken a condition at its threshold is decided (either way)
with probability α = 2 α_side(1). The c_k are exact for the looks' information fractions: the
joint law of the cumulative statistics (Z_k = Z at look k, Cov(Z_i, Z_j) = √(t_i / t_j)) is
integrated look after look on a grid (Armitage, McPherson & Rowe 1969; Jennison & Turnbull
2000, ch. 19). The intervals value ± c_k · SE are Jennison & Turnbull's repeated confidence
intervals (ch. 9): with symmetric two-sided boundaries, "the interval excludes the threshold"
is the boundary crossing.

Futility (non-binding, a flag only: the boundaries do not change) is decided by conditional
power under the current trend: if, continuing to the planned size at the drift estimated so
far, neither passing nor failing has a chance of ``FUTILITY_POWER`` (10 %), more cases will
most likely leave the condition undecided.
"""

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from validation.gate import FAILED, NOT_ENOUGH_DATA, PASSED, UNDECIDED, condition_decide
from validation.statistics.lazy_scipy import optimize, stats

ALPHA = 0.05
FUTILITY_POWER = 0.10
AT_LEAST = "at_least"  # passed when the value is at least the threshold
WITHIN = "within"  # passed when the value lies within ± threshold
DIRECTIONS = (AT_LEAST, WITHIN)

# The gate's outcome words, the one vocabulary of every decision (``validation.gate``).
NO_DATA = NOT_ENOUGH_DATA

# Below this, a look's share of α is no probability the grid can resolve: its boundary is the
# single-look one, which is then larger than any boundary that matters.
_NEGLIGIBLE = 1e-12
# Grid spacing relative to the spread of one look's increment, and its smallest size.
_GRID_STEP = 0.125
_GRID_MIN_POINTS = 201


def spending_obrien_fleming(*, t: float, alpha: float = ALPHA) -> float:
    """Cumulative two-sided α spent by information fraction ``t`` (Lan & DeMets 1983):
    both sides' α_side(t), each side spending α / 2 by t = 1."""
    if t <= 0:
        return 0.0
    t = min(t, 1.0)
    return float(4 * stats.norm.sf(stats.norm.isf(alpha / 4) / math.sqrt(t)))


def _simpson(low: float, high: float, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Grid points on [low, high] and their composite Simpson weights."""
    intervals = max(_GRID_MIN_POINTS - 1, 2 * math.ceil((high - low) / step / 2))
    points = np.linspace(low, high, intervals + 1)
    weights = np.ones(intervals + 1)
    weights[1:-1:2] = 4
    weights[2:-1:2] = 2
    return points, weights * (high - low) / (3 * intervals)


def _crossing(
    c: float, mass: np.ndarray, centre: np.ndarray, spread: float, target: float
) -> float:
    """P(|Z_k| ≥ c, no earlier crossing) − target, from the grid's masses of Z_{k−1}."""
    outside = stats.norm.sf((c - centre) / spread) + stats.norm.cdf((-c - centre) / spread)
    return float(mass @ outside) - target


def boundaries_compute(*, fractions: Sequence[float], alpha: float = ALPHA) -> tuple[float, ...]:
    """Two-sided critical values c_1 … c_K for looks at increasing information ``fractions``
    in (0, 1]: under the null, P(|Z_k| ≥ c_k first at look k) = α(t_k) − α(t_{k−1})."""
    t = [float(f) for f in fractions]
    if not t:
        return ()
    if any(not 0 < f <= 1 for f in t) or any(b <= a for a, b in itertools.pairwise(t)):
        raise ValueError(f"information fractions must increase within (0, 1], got {t}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    spent = [spending_obrien_fleming(t=f, alpha=alpha) for f in t]
    critical = [float(stats.norm.isf(spent[0] / 2))]
    # The density of Z_k on the continuation region, kept as values at grid points.
    points, weights = _simpson(-critical[0], critical[0], 0.02)
    density = stats.norm.pdf(points)
    for k in range(1, len(t)):
        target = spent[k] - spent[k - 1]
        shrink = math.sqrt(t[k - 1] / t[k])
        spread = math.sqrt((t[k] - t[k - 1]) / t[k])
        mass = weights * density
        centre = points * shrink

        if target < _NEGLIGIBLE:
            c = float(stats.norm.isf(max(target, 1e-300) / 2))
        else:
            bracket = (0.0, 40.0)
            c = float(optimize.brentq(_crossing, *bracket, args=(mass, centre, spread, target)))
        critical.append(c)
        new_points, new_weights = _simpson(-c, c, spread * _GRID_STEP)
        kernel = stats.norm.pdf((new_points[:, None] - centre[None, :]) / spread) / spread
        density = kernel @ mass
        points, weights = new_points, new_weights
    return tuple(critical)


def look_fractions(*, completed: int, planned: int, every: int) -> tuple[float, ...]:
    """Information fractions of the looks taken so far: one every ``every`` completed cases,
    and a last one at the planned size once it is reached."""
    if planned < 1 or every < 1:
        raise ValueError("planned cases and the look interval must be at least 1")
    taken = min(completed, planned) // every
    fractions = [i * every / planned for i in range(1, taken + 1)]
    if completed >= planned and (not fractions or fractions[-1] < 1):
        fractions.append(1.0)
    return tuple(fractions)


@dataclass(frozen=True)
class Condition:
    """One gate condition at a look: its estimate, standard error and threshold."""

    name: str
    value: float | None
    se: float | None
    threshold: float
    direction: str = AT_LEAST
    # The range the figure can take (an agreement: 0 to 1): intervals are shown within it.
    limits: tuple[float, float] | None = None
    # Degrees of freedom of the SE (cases − 1 for a case-clustered one): the boundary is
    # carried to Student's t at the same tail probability, as a few cases estimate the SE
    # loosely. None: the normal boundary as it is.
    df: int | None = None

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {self.direction!r}")
        if self.se is not None and self.se <= 0:
            raise ValueError(f"standard error must be positive, got {self.se}")
        if self.df is not None and self.df < 1:
            raise ValueError(f"degrees of freedom must be at least 1, got {self.df}")


def condition_from_interval(
    *,
    name: str,
    value: float | None,
    low: float | None,
    high: float | None,
    threshold: float,
    direction: str = AT_LEAST,
    limits: tuple[float, float] | None = None,
    df: int | None = None,
    level: float = 0.95,
) -> Condition:
    """A condition from a reported interval: SE = the wider of its two sides over z_{(1+level)/2}.

    A proportion's interval near 0 or 1 is lopsided (10 of 10: [0.69, 1]); half its width would
    give a look's interval narrower than the reported one on the side that decides. A
    zero-width interval gives no SE at all (no data), never SE = 0, which would pass anything.
    """
    se = None
    if value is not None and low is not None and high is not None:
        se = max(value - low, high - value) / float(stats.norm.isf((1 - level) / 2))
        se = se if se > 0 else None
    return Condition(
        name=name,
        value=value,
        se=se,
        threshold=threshold,
        direction=direction,
        limits=limits,
        df=df,
    )


@dataclass(frozen=True)
class ConditionStatus:
    name: str
    status: str  # PASSED, FAILED, UNDECIDED or NO_DATA
    value: float | None
    low: float | None  # value − c · SE at this look (within the condition's limits)
    high: float | None
    # Chance of either decision by the planned size under the current trend (None once
    # decided, at the final look, or without data).
    conditional_power: float | None
    futile: bool


def _decide(condition: Condition, low: float, high: float) -> str:
    """The gate's own rule (``validation.gate.condition_decide``) on the look's interval."""
    return condition_decide(
        value=condition.value,
        low=low,
        high=high,
        threshold=condition.threshold,
        direction=condition.direction,
    )


def _conditional_power(condition: Condition, *, fraction: float, final_critical: float) -> float:
    """P(a decision at the planned size | data so far, drift = current estimate)."""
    value, se = condition.value, condition.se

    def reach(z: float) -> float:
        # Z(1) − c under the current trend, over the sd of what is yet to come.
        return float(stats.norm.cdf((z / math.sqrt(fraction) - final_critical) / rest))

    rest = math.sqrt(1 - fraction)
    if condition.direction == AT_LEAST:
        z = (value - condition.threshold) / se
        return reach(z) + reach(-z)
    above = (value - condition.threshold) / se
    below = (-condition.threshold - value) / se
    # Passing needs both sides: the smaller chance bounds it from above.
    passing = min(
        reach((condition.threshold - value) / se), reach((value + condition.threshold) / se)
    )
    return min(1.0, passing + reach(above) + reach(below))


def condition_monitor(
    *, condition: Condition, critical: float, fraction: float, final_critical: float
) -> ConditionStatus:
    """Decide one condition at a look with critical value ``critical`` and information
    ``fraction``; flag futility from the conditional power at ``final_critical``."""
    if condition.value is None or condition.se is None:
        return ConditionStatus(condition.name, NO_DATA, condition.value, None, None, None, False)
    if condition.df is not None:
        critical = float(stats.t.isf(stats.norm.sf(critical), condition.df))
    low = condition.value - critical * condition.se
    high = condition.value + critical * condition.se
    status = _decide(condition, low, high)
    if condition.limits is not None:
        # Clipping to the range the figure can take changes no decision: the threshold is
        # inside that range.
        low, high = max(low, condition.limits[0]), min(high, condition.limits[1])
    power = None
    if status == UNDECIDED and fraction < 1:
        power = _conditional_power(condition, fraction=fraction, final_critical=final_critical)
    futile = power is not None and power < FUTILITY_POWER
    return ConditionStatus(condition.name, status, condition.value, low, high, power, futile)


@dataclass(frozen=True)
class Monitor:
    """A study's gate at its current look."""

    planned: int
    completed: int
    every: int
    look: int  # looks taken; 0 before the first
    fraction: float | None  # information fraction of the current look
    critical: float | None  # its critical value
    next_look_at: int | None  # completed cases of the next look (None after the last)
    conditions: tuple[ConditionStatus, ...]

    @property
    def decided(self) -> bool:
        """Every condition passed or failed: the answer is known, the study may stop."""
        return bool(self.conditions) and all(c.status in (PASSED, FAILED) for c in self.conditions)

    @property
    def futile(self) -> bool:
        return any(c.futile for c in self.conditions)


def study_monitor(
    *,
    conditions: Sequence[Condition],
    completed: int,
    planned: int,
    every: int,
    alpha: float = ALPHA,
) -> Monitor:
    """The gate at the current look of a study that looks every ``every`` completed cases."""
    taken = look_fractions(completed=completed, planned=planned, every=every)
    if not taken:
        return Monitor(planned, completed, every, 0, None, None, min(every, planned), ())
    # The rest of the schedule, for the final boundary of the conditional power.
    schedule = taken + look_fractions(completed=planned, planned=planned, every=every)[len(taken) :]
    if schedule[-1] < 1:
        schedule += (1.0,)
    bounds = boundaries_compute(fractions=schedule, alpha=alpha)
    look = len(taken)
    critical, fraction = bounds[look - 1], taken[-1]
    statuses = tuple(
        condition_monitor(
            condition=c, critical=critical, fraction=fraction, final_critical=bounds[-1]
        )
        for c in conditions
    )
    upcoming = (look + 1) * every
    next_look_at = None if fraction >= 1 else min(upcoming, planned)
    return Monitor(planned, completed, every, look, fraction, critical, next_look_at, statuses)


@dataclass(frozen=True)
class CloseLook:
    """The close of a sequentially monitored study as its final look: the looks taken before
    it (one every ``every`` completed cases) and the close itself, at the information of the
    cases it holds; each look's Lan–DeMets boundary. Spending by each look's actual
    information is what keeps the overall error at α whether the study ran to its planned
    size, stopped early at a look, or closed between two looks."""

    planned: int
    every: int
    completed: int
    fractions: tuple[float, ...]  # the looks, the close last
    critical: tuple[float, ...]  # their critical values
    planned_looks: int  # looks of the full schedule

    @property
    def look(self) -> int:
        return len(self.fractions)

    @property
    def final_critical(self) -> float:
        return self.critical[-1]

    @property
    def level(self) -> float:
        """The two-sided level whose normal quantile is the final critical value: the level
        at which the close's bootstrap intervals decide (2.014 → 95.6 %)."""
        return float(1 - 2 * stats.norm.sf(self.final_critical))

    @property
    def stopped_early(self) -> bool:
        """Closed before the planned size (stopped at a look, or closed by hand)."""
        return self.completed < self.planned


def close_look(
    *, completed: int, planned: int, every: int, alpha: float = ALPHA
) -> CloseLook | None:
    """The final look of a study closed with ``completed`` complete cases of ``planned``,
    looked at every ``every``; None without a complete case (nothing to decide on)."""
    if completed < 1:
        return None
    close = min(completed, planned) / planned
    taken = look_fractions(completed=completed, planned=planned, every=every)
    fractions = (*(t for t in taken if t < close), close)
    return CloseLook(
        planned=planned,
        every=every,
        completed=completed,
        fractions=fractions,
        critical=boundaries_compute(fractions=fractions, alpha=alpha),
        planned_looks=len(look_fractions(completed=planned, planned=planned, every=every)),
    )
