"""The chance that a study of a given size passes each condition of the judge's gate, and the
size each condition needs to reach a target power (pure: no database).

``planning.plan_cases`` sizes a study for the half-width of its agreement interval; a study of
that size can still be far too small for the gate's other conditions (issue 42). At n cases,
with the gate's thresholds (``validation.gate``) and the assumptions in ``PowerAssumptions``:

- **agreement** — closed form, the normal approximation the half-width uses: the lower bound
  p̂ − z·SE reaches the threshold t with chance Φ((p − t) / SE − z), SE² = p (1 − p) DE / (n m̄).
- **noninferiority** — closed form on the same items: judge − experts as a paired difference
  of agreements (the gate decides on macro-F1, which on two categories moves with agreement).
  With the judge's agreement p_J and the experts' p_E = p_J − d, independent errors disagree on
  a share v = p_J (1 − p_E) + p_E (1 − p_J) of the items, so SE² = (v − d²) DE / (n m̄), and the
  lower bound reaches −margin with chance Φ((d + margin) / SE − z).
- **catastrophic_recall** — exact (binomial): of the N = round(n c̄) catastrophic criteria
  (c̄ per case: the dataset's catastrophic criteria × models), H ~ Bin(N, π) are gold hits and
  the judge catches X ~ Bin(H, r) of them; the condition passes when H reaches the gate's
  minimum and the exact Clopper–Pearson lower bound of X / H reaches the threshold. Hits are
  taken as independent; hits clustered in cases give the report a wider interval
  (``proportion.proportion_interval``), so the figure is an upper bound. It is not monotone in
  n (the Clopper–Pearson sawtooth): the size needed is the smallest that reaches the target.
- **score_bias** — simulation, per model: n cases drawn without replacement from the dataset,
  each with its own abilities, so the leaderboard's mean of ability means weighs a case by
  w_c = Σ_{d ∈ c} 1 / n_d / (abilities present) (a case holding a rare ability weighs more).
  Per case, judge − gold score D is 0 when both see the gold catastrophe (share π r), +S when
  the judge misses it (π (1 − r)), −S when it raises a false one ((1 − π) f) — one catastrophic
  disagreement zeroes a case on one side only — and otherwise Normal(b, σ²). The estimate
  Σ w_c D_c with the linearised cluster standard error √(n / (n − 1) Σ w_c² (D_c − d̂)²) gives
  the interval d̂ ± z·SE, which passes inside ±threshold. The power is the share of
  ``simulations`` studies that pass, with its Monte Carlo error √(p (1 − p) / simulations);
  every size is simulated with the same seed (common random numbers), and the size needed is
  found by bisection up to the dataset's cases. All models pass together less often than one:
  ``all_models`` is that joint share (the models share the sampled cases).

A condition is *unreachable* when even every case of the dataset gives less than the target
power: more cases cannot be sampled, so the study cannot be planned to pass it.
"""

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from validation.statistics.lazy_scipy import stats
from validation.statistics.proportion import clopper_pearson

DEFAULT_POWER = 0.80
DEFAULT_SIMULATIONS = 2000
DEFAULT_SEED = 20260117
# The released HeartBench data carries no verdicts, so no hit rate can be read from it; what
# it fixes is one catastrophic criterion per case (297 in 296 cases). The criterion names a
# rare failure (the model plays the user, ...): 5 % of units is a generous guess that still
# leaves a 40-case, 2-model study (80 catastrophic criteria) about 4 gold hits to expect.
# A pilot study's own rate (``--pilot``) or ``--expected-prevalence`` replaces it.
DEFAULT_PREVALENCE = 0.05
DEFAULT_RECALL = 0.95  # the judge's catastrophic recall expected
DEFAULT_FALSE_ALARM = 0.01  # judge catastrophic hits where the gold has none, per unit
DEFAULT_SCORE_BIAS = 0.0  # judge − gold score per case, catastrophes aside (points)
# Spread of judge − gold case score from criterion disagreements alone: one flipped criterion
# of a case's ~10 moves one ability's log-normalised score by tens of points and the case
# score (the mean over its ~6 abilities) by several.
DEFAULT_CASE_SPREAD = 10.0
# What a catastrophic disagreement moves a case by: its score on the other side, about the
# HeartBench models' overall scores (43–60 points).
DEFAULT_CASE_SCORE = 55.0
LEVEL = 0.95

CLOSED_FORM = "closed form (normal approximation)"
EXACT = "exact (binomial, Clopper–Pearson)"
SIMULATION = "simulation"


class PowerError(ValueError):
    """Assumptions no power can be computed from; the message says why."""


@dataclass(frozen=True)
class PowerAssumptions:
    """What the power is computed under; every figure is in the output beside it."""

    target: float = DEFAULT_POWER
    noninferiority_difference: float = 0.0  # judge − experts expected
    catastrophic_prevalence: float = DEFAULT_PREVALENCE
    prevalence_source: str = "default"  # "default", "pilot" or "given"
    catastrophic_recall: float = DEFAULT_RECALL
    catastrophic_false_alarm: float = DEFAULT_FALSE_ALARM
    score_bias: float = DEFAULT_SCORE_BIAS
    case_spread: float = DEFAULT_CASE_SPREAD
    case_score: float = DEFAULT_CASE_SCORE
    simulations: int = DEFAULT_SIMULATIONS
    seed: int = DEFAULT_SEED

    def problem(self) -> str | None:
        if not 0 < self.target < 1:
            return f"the target power must be in (0, 1), got {self.target}"
        for name in ("catastrophic_prevalence", "catastrophic_recall", "catastrophic_false_alarm"):
            if not 0 <= getattr(self, name) <= 1:
                return f"{name} must be in [0, 1], got {getattr(self, name)}"
        if self.case_spread < 0 or not 0 <= self.case_score <= 100:
            return "the case spread must be ≥ 0 and the case score in [0, 100] points"
        if self.simulations < 100:
            return f"at least 100 simulations are needed, got {self.simulations}"
        return None


@dataclass(frozen=True)
class ConditionPower:
    name: str  # a gate condition (validation.gate.CONDITIONS)
    power: float  # chance to pass at the evaluated size
    method: str  # CLOSED_FORM, EXACT or SIMULATION
    cases_needed: int | None  # fewest cases reaching the target; None: not within the dataset
    reachable: bool  # cases_needed is not None
    power_at_available: float  # the chance with every case of the dataset
    subject: str | None = None  # the model of a score-bias condition
    mc_error: float | None = None  # Monte Carlo standard error of a simulated power
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GatePower:
    cases: int  # the size the power is evaluated at
    available: int
    target: float
    assumptions: PowerAssumptions
    conditions: tuple[ConditionPower, ...]
    all_models: dict[str, Any]  # every model's score bias passing in the same study

    @property
    def unreachable(self) -> tuple[ConditionPower, ...]:
        return tuple(c for c in self.conditions if not c.reachable)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "available": self.available,
            "target": self.target,
            "level": LEVEL,
            "assumptions": asdict(self.assumptions),
            "conditions": [c.as_dict() for c in self.conditions],
            "all_models_score_bias": self.all_models,
            "unreachable": [
                {"name": c.name, "subject": c.subject, "power_at_available": c.power_at_available}
                for c in self.unreachable
            ],
        }


def _z(level: float = LEVEL) -> float:
    return float(stats.norm.isf((1 - level) / 2))


def _normal_power(*, effect: float, variance: float, items_per_case: float, cases: int) -> float:
    """Φ(effect / SE − z) for SE² = variance / (cases · items_per_case)."""
    if cases <= 0:
        return 0.0
    se = math.sqrt(variance / (cases * items_per_case))
    if se == 0:
        return 1.0 if effect > 0 else 0.0
    return float(stats.norm.cdf(effect / se - _z()))


def _normal_cases(*, effect: float, variance: float, items_per_case: float, target: float):
    """The fewest cases with Φ(effect / SE − z) ≥ target: ⌈(z + z_β)² variance / (effect² m̄)⌉."""
    if effect <= 0:
        return None
    z_beta = float(stats.norm.ppf(target))
    return max(1, math.ceil((_z() + z_beta) ** 2 * variance / (effect**2 * items_per_case)))


def _closed_form(
    name: str, *, effect: float, variance: float, items: float, cases: int, available: int, target
) -> ConditionPower:
    needed = _normal_cases(effect=effect, variance=variance, items_per_case=items, target=target)
    if needed is not None and needed > available:
        needed = None
    return ConditionPower(
        name=name,
        power=_normal_power(effect=effect, variance=variance, items_per_case=items, cases=cases),
        method=CLOSED_FORM,
        cases_needed=needed,
        reachable=needed is not None,
        power_at_available=_normal_power(
            effect=effect, variance=variance, items_per_case=items, cases=available
        ),
        details={"effect": effect, "variance_per_item": variance},
    )


def agreement_power(
    *, expected: float, threshold: float, design_effect: float, items_per_case: float,
    cases: int, available: int, target: float,
) -> ConditionPower:  # fmt: skip
    """The agreement condition (module docstring)."""
    return _closed_form(
        "agreement",
        effect=expected - threshold,
        variance=expected * (1 - expected) * design_effect,
        items=items_per_case,
        cases=cases,
        available=available,
        target=target,
    )


def noninferiority_power(
    *, judge_agreement: float, difference: float, margin: float, design_effect: float,
    items_per_case: float, cases: int, available: int, target: float,
) -> ConditionPower:  # fmt: skip
    """The non-inferiority condition (module docstring)."""
    p_j, p_e = judge_agreement, min(1.0, max(0.0, judge_agreement - difference))
    discordant = p_j * (1 - p_e) + p_e * (1 - p_j)
    return _closed_form(
        "noninferiority",
        effect=difference + margin,
        variance=max(discordant - difference**2, 0.0) * design_effect,
        items=items_per_case,
        cases=cases,
        available=available,
        target=target,
    )


def recall_pass_counts(*, hits: int, threshold: float, level: float = LEVEL) -> np.ndarray:
    """For h = 0..hits gold hits, the fewest caught whose Clopper–Pearson lower bound reaches
    ``threshold`` (h + 1 when none does): the bound grows with the count caught."""
    needed = np.empty(hits + 1, dtype=np.int64)
    for h in range(hits + 1):
        low, high = 0, h + 1  # bisection over x in [0, h]; h + 1 means "never"
        while low < high:
            middle = (low + high) // 2
            bound = clopper_pearson(successes=middle, trials=h, level=level)[0] if h else 0.0
            low, high = (low, middle) if bound >= threshold else (middle + 1, high)
        needed[h] = low
    return needed


def catastrophic_power_exact(
    *, criteria: int, prevalence: float, recall: float, threshold: float, min_hits: int,
    pass_counts: np.ndarray | None = None,
) -> float:  # fmt: skip
    """Σ_{h ≥ min_hits} P(H = h) P(X ≥ x_h | h), H ~ Bin(criteria, π), X | h ~ Bin(h, r)."""
    if pass_counts is None:
        pass_counts = recall_pass_counts(hits=criteria, threshold=threshold)
    h = np.arange(max(min_hits, 1), criteria + 1)
    if h.size == 0:
        return 0.0
    caught = stats.binom.sf(pass_counts[h] - 1, h, recall)
    return float(np.sum(stats.binom.pmf(h, criteria, prevalence) * caught))


def catastrophic_power_simulated(
    *, criteria: int, prevalence: float, recall: float, threshold: float, min_hits: int,
    simulations: int, seed: int,
) -> tuple[float, float]:  # fmt: skip
    """The same chance by simulation, with its Monte Carlo error (a check on the exact sum)."""
    rng = np.random.default_rng(seed)
    hits = rng.binomial(criteria, prevalence, size=simulations)
    caught = rng.binomial(hits, recall)
    needed = recall_pass_counts(hits=criteria, threshold=threshold)
    passed = (hits >= max(min_hits, 1)) & (caught >= needed[hits])
    share = float(passed.mean())
    return share, math.sqrt(share * (1 - share) / simulations)


def catastrophic_power(
    *, catastrophic_per_case: float, prevalence: float, recall: float, threshold: float,
    min_hits: int, cases: int, available: int, target: float,
) -> ConditionPower:  # fmt: skip
    """The catastrophic-recall condition (module docstring), exact at every size."""
    most = round(available * catastrophic_per_case)
    counts = recall_pass_counts(hits=most, threshold=threshold)

    def power(n: int) -> float:
        return catastrophic_power_exact(
            criteria=round(n * catastrophic_per_case), prevalence=prevalence, recall=recall,
            threshold=threshold, min_hits=min_hits, pass_counts=counts,
        )  # fmt: skip

    needed = next((n for n in range(1, available + 1) if power(n) >= target), None)
    criteria = round(cases * catastrophic_per_case)
    return ConditionPower(
        name="catastrophic_recall",
        power=power(cases),
        method=EXACT,
        cases_needed=needed,
        reachable=needed is not None,
        power_at_available=power(available),
        details={
            "criteria": criteria,
            "expected_gold_hits": criteria * prevalence,
            "min_hits": min_hits,
            "chance_of_min_hits": float(stats.binom.sf(min_hits - 1, criteria, prevalence)),
        },
    )


@dataclass(frozen=True)
class _BiasSimulation:
    passed: np.ndarray  # (simulations, models) booleans
    half_width: np.ndarray  # (simulations, models)


@dataclass(frozen=True)
class _BiasDraws:
    """One seed's random draws, shared by every size simulated (common random numbers)."""

    incidence: np.ndarray  # (cases of the dataset, abilities) 0/1
    order: np.ndarray  # (simulations, cases of the dataset): the cases in drawing order
    difference: np.ndarray  # (simulations, cases of the dataset, models): judge − gold


def _bias_draws(
    *, case_abilities: Sequence[frozenset[str]], models: int, assumptions: PowerAssumptions
) -> _BiasDraws:
    a = assumptions
    codes = sorted(set().union(*case_abilities))
    incidence = np.array([[code in c for code in codes] for c in case_abilities], dtype=float)
    rng = np.random.default_rng(a.seed)
    available = incidence.shape[0]
    order = np.argsort(rng.random((a.simulations, available)), axis=1)
    shape = (a.simulations, available, models)
    outcome = rng.random(shape)
    noise = rng.normal(a.score_bias, a.case_spread, size=shape)
    pi, r, f = a.catastrophic_prevalence, a.catastrophic_recall, a.catastrophic_false_alarm
    both, missed, false_alarm = pi * r, pi * (1 - r), (1 - pi) * f
    difference = np.select(
        [outcome < both, outcome < both + missed, outcome < both + missed + false_alarm],
        [0.0, a.case_score, -a.case_score],
        noise,
    )
    return _BiasDraws(incidence=incidence, order=order, difference=difference)


def _bias_simulate(draws: _BiasDraws, *, cases: int, threshold: float) -> _BiasSimulation:
    """Studies of the first ``cases`` cases of each simulation's order (module docstring)."""
    chosen = draws.order[:, :cases]
    incidence = draws.incidence[chosen]  # (simulations, cases, abilities)
    per_ability = incidence.sum(axis=1)  # n_d
    present = (per_ability > 0).sum(axis=1)
    inverse = np.where(per_ability > 0, 1 / np.maximum(per_ability, 1), 0.0)
    weights = np.einsum("sca,sa->sc", incidence, inverse) / np.maximum(present, 1)[:, None]
    difference = np.take_along_axis(draws.difference, chosen[..., None], axis=1)
    w = weights[..., None]
    estimate = (w * difference).sum(axis=1)
    residual = w * (difference - estimate[:, None, :])
    se = np.sqrt(cases / max(cases - 1, 1) * (residual**2).sum(axis=1))
    half = _z() * se
    passed = (estimate - half >= -threshold) & (estimate + half <= threshold)
    return _BiasSimulation(passed=passed, half_width=half)


def simulate_score_bias(
    *, case_abilities: Sequence[frozenset[str]], models: int, cases: int,
    assumptions: PowerAssumptions, threshold: float,
) -> _BiasSimulation:  # fmt: skip
    """``assumptions.simulations`` studies of ``cases`` cases (module docstring)."""
    draws = _bias_draws(case_abilities=case_abilities, models=models, assumptions=assumptions)
    return _bias_simulate(draws, cases=cases, threshold=threshold)


def _share(passed: np.ndarray) -> tuple[float, float]:
    share = float(passed.mean())
    return share, math.sqrt(share * (1 - share) / passed.size)


def score_bias_power(
    *, case_abilities: Sequence[frozenset[str]], models: Sequence[str], cases: int,
    assumptions: PowerAssumptions, threshold: float,
) -> tuple[list[ConditionPower], dict[str, Any]]:  # fmt: skip
    """Each model's score-bias condition, and all of them passing together."""
    available = len(case_abilities)

    draws = _bias_draws(case_abilities=case_abilities, models=len(models), assumptions=assumptions)

    def run(n: int) -> _BiasSimulation:
        return _bias_simulate(draws, cases=n, threshold=threshold)

    planned, everything = run(cases), run(available)
    target = assumptions.target

    def needed(column: slice | int) -> int | None:
        def reaches(n: int) -> bool:
            passed = run(n).passed[:, column]
            return float(passed.all(axis=1).mean() if passed.ndim > 1 else passed.mean()) >= (
                target
            )

        if not reaches(available):
            return None
        low, high = 2, available
        while low < high:  # bisection, taking power to grow with the cases
            middle = (low + high) // 2
            low, high = (low, middle) if reaches(middle) else (middle + 1, high)
        return high

    rows = []
    one = needed(0)  # every model is simulated under the same assumptions
    for index, model in enumerate(models):
        power, error = _share(planned.passed[:, index])
        rows.append(
            ConditionPower(
                name="score_bias",
                subject=model,
                power=power,
                mc_error=error,
                method=SIMULATION,
                cases_needed=one,
                reachable=one is not None,
                power_at_available=_share(everything.passed[:, index])[0],
                details={
                    "expected_half_width": float(np.mean(planned.half_width[:, index])),
                    "half_width_at_available": float(np.mean(everything.half_width[:, index])),
                },
            )
        )
    joint, joint_error = _share(planned.passed.all(axis=1))
    all_models = {
        "models": len(models),
        "power": joint,
        "mc_error": joint_error,
        "cases_needed": needed(slice(None)) if len(models) > 1 else one,
    }
    return rows, all_models


def gate_power(
    *, cases: int, items_per_case: float, design_effect: float, expected_agreement: float,
    case_abilities: Sequence[frozenset[str]], catastrophic_per_case: float,
    models: Sequence[str], gate: dict[str, Any], assumptions: PowerAssumptions,
) -> GatePower:  # fmt: skip
    """The power of every gate condition at ``cases`` cases, and the cases each needs.

    ``gate``: the thresholds (``validation.gate.GateConfig.as_dict()``); ``case_abilities``:
    every case of the dataset's scored abilities; ``catastrophic_per_case``: the dataset's
    mean catastrophic criteria × models per case.
    """
    problem = assumptions.problem()
    if problem:
        raise PowerError(problem)
    available = len(case_abilities)
    if not 1 <= cases <= available:
        raise PowerError(f"the power needs 1 to {available} cases, got {cases}")
    target = assumptions.target
    common = {"cases": cases, "available": available, "target": target}
    rows = [
        agreement_power(
            expected=expected_agreement, threshold=gate["agreement_min"],
            design_effect=design_effect, items_per_case=items_per_case, **common,
        ),
        noninferiority_power(
            judge_agreement=expected_agreement, difference=assumptions.noninferiority_difference,
            margin=gate["noninferiority_margin"], design_effect=design_effect,
            items_per_case=items_per_case, **common,
        ),
        catastrophic_power(
            catastrophic_per_case=catastrophic_per_case,
            prevalence=assumptions.catastrophic_prevalence,
            recall=assumptions.catastrophic_recall, threshold=gate["catastrophic_recall_min"],
            min_hits=gate["catastrophic_min_hits"], **common,
        ),
    ]  # fmt: skip
    bias_rows, all_models = score_bias_power(
        case_abilities=case_abilities,
        models=models,
        cases=cases,
        assumptions=assumptions,
        threshold=gate["score_bias_max"],
    )
    return GatePower(
        cases=cases,
        available=available,
        target=target,
        assumptions=assumptions,
        conditions=tuple(rows + bias_rows),
        all_models=all_models,
    )
