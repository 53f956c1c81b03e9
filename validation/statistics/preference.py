"""Pairwise preference (pure): Bradley–Terry strengths and observed win rates from comparisons
``(case, model_a, model_b, winner)``, winner ``"a"``, ``"b"`` or ``"tie"``.

Rules, each stated where it is reported:

- A tie counts as half a win for each side (``ties="half"``); ``ties="drop"`` leaves ties out.
- Strengths are maximum-likelihood Bradley–Terry strengths s, fitted on log-strengths θ = ln s
  by Newton's method with step halving (the log-likelihood is concave), normalised so that the
  log-strengths sum to 0 (the strengths' geometric mean is 1); ``p_win[i][j] = s_i / (s_i +
  s_j)``.
- The MLE is finite only when every group of models beats the rest at least once (Hunter
  2004, Assumption 1: the win graph is strongly connected). When it is not (a model never loses
  or never wins), ``PRIOR_PSEUDO_COUNT`` half-wins are added each way to every pair of models
  compared in the data, and the result says so (``regularised``); the remedy is never silent.
  Models in two parts of the comparison graph that no chain of comparisons joins have no
  common scale: that is refused (``PreferenceError``).
- Intervals resample whole cases (every comparison of a case together), with the seeded
  resamples of ``validation.statistics.bootstrap``; the prior (if any) is that of the full
  data in every resample, and a resample where the MLE does not exist is undefined there.
"""

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from validation.statistics.bootstrap import cluster_bootstrap, tables_statistic
from validation.statistics.results import BootstrapSettings, Interval, spread_or_withheld

WINNERS = ("a", "b", "tie")
TIES = ("half", "drop")
# The Haldane–Anscombe half-count, used only when the MLE would be infinite.
PRIOR_PSEUDO_COUNT = 0.5
NORMALISATION = "log-strengths sum to 0 (geometric mean of the strengths is 1)"
MAX_ITERATIONS = 200
TOLERANCE = 1e-10
MAX_STEP = 4.0  # largest Newton step in log-strength: keeps far-off starts from overshooting


class PreferenceError(ValueError):
    """The comparisons cannot give the statistic asked for (the reason is in the message)."""


class Comparison(NamedTuple):
    case: Hashable  # what the bootstrap resamples: every comparison of a case together
    model_a: str
    model_b: str
    winner: str  # "a", "b" or "tie"


@dataclass(frozen=True)
class Indexed:
    """Comparisons as integer arrays: the models sorted, the cases in first-seen order."""

    models: tuple[str, ...]
    cases: tuple[Hashable, ...]
    case: np.ndarray  # (n,) index into cases
    a: np.ndarray  # (n,) index into models
    b: np.ndarray
    score_a: np.ndarray  # (n,) 1 when a won, 0 when b won, 0.5 on a tie

    @property
    def n(self) -> int:
        return int(self.case.size)


def comparisons_check(comparisons: Iterable[Comparison]) -> list[Comparison]:
    """The comparisons as ``Comparison``s; ``PreferenceError`` on an unknown winner or a model
    compared with itself."""
    checked = [Comparison(*c) for c in comparisons]
    for number, c in enumerate(checked, start=1):
        if c.winner not in WINNERS:
            raise PreferenceError(f"comparison {number}: winner {c.winner!r} is not a, b or tie")
        if c.model_a == c.model_b:
            raise PreferenceError(f"comparison {number}: {c.model_a!r} is compared with itself")
    return checked


def comparisons_index(comparisons: Iterable[Comparison], *, ties: str = "half") -> Indexed:
    if ties not in TIES:
        raise PreferenceError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    checked = comparisons_check(comparisons)
    if ties == "drop":
        checked = [c for c in checked if c.winner != "tie"]
    if not checked:
        raise PreferenceError("no comparisons" + (" other than ties" if ties == "drop" else ""))
    models = tuple(sorted({m for c in checked for m in (c.model_a, c.model_b)}))
    cases = tuple(dict.fromkeys(c.case for c in checked))
    model_index = {m: i for i, m in enumerate(models)}
    case_index = {k: i for i, k in enumerate(cases)}
    score = {"a": 1.0, "b": 0.0, "tie": 0.5}
    return Indexed(
        models=models,
        cases=cases,
        case=np.array([case_index[c.case] for c in checked], dtype=np.int64),
        a=np.array([model_index[c.model_a] for c in checked], dtype=np.int64),
        b=np.array([model_index[c.model_b] for c in checked], dtype=np.int64),
        score_a=np.array([score[c.winner] for c in checked]),
    )


def win_tables(indexed: Indexed) -> np.ndarray:
    """Per-case win tables (n_cases, m, m): [c, i, j] = wins of i over j in case c, a tie
    half a win each way."""
    m = len(indexed.models)
    tables = np.zeros((len(indexed.cases), m, m))
    np.add.at(tables, (indexed.case, indexed.a, indexed.b), indexed.score_a)
    np.add.at(tables, (indexed.case, indexed.b, indexed.a), 1.0 - indexed.score_a)
    return tables


def _reaches_all(adjacency: np.ndarray) -> np.ndarray:
    """Whether every node reaches every other along edges (..., m, m) → (...)."""
    m = adjacency.shape[-1]
    reach = adjacency | np.eye(m, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(m, 2)))))):
        reach = np.matmul(reach.astype(np.int64), reach.astype(np.int64)) > 0
    return reach.all(axis=(-2, -1))


def _components(compared: np.ndarray, models: Sequence[str]) -> list[list[str]]:
    seen: set[int] = set()
    parts = []
    for start in range(len(models)):
        if start in seen:
            continue
        part, frontier = {start}, [start]
        while frontier:
            node = frontier.pop()
            for other in np.flatnonzero(compared[node]):
                if int(other) not in part:
                    part.add(int(other))
                    frontier.append(int(other))
        seen |= part
        parts.append([models[i] for i in sorted(part)])
    return parts


def _why_infinite(wins: np.ndarray, models: Sequence[str]) -> str:
    never_lose = [models[i] for i in range(len(models)) if wins[:, i].sum() == 0]
    never_win = [models[i] for i in range(len(models)) if wins[i].sum() == 0]
    parts = []
    if never_lose:
        parts.append(f"never loses: {', '.join(never_lose)}")
    if never_win:
        parts.append(f"never wins: {', '.join(never_win)}")
    if not parts:
        parts.append("a group of models never loses to the others")
    return "; ".join(parts)


def _log_likelihood(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    difference = theta[..., :, None] - theta[..., None, :]
    # wins_ij · ln p_ij, with ln p_ij = −ln(1 + e^(θ_j − θ_i))
    return -(wins * np.logaddexp(0.0, -difference)).sum(axis=(-2, -1))


def bt_fit(wins: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """Log-strengths (..., m) maximising the Bradley–Terry likelihood of win tables
    (..., m, m), each summing to 0; with the iterations used and whether each converged.
    Tables whose MLE is infinite come out NaN."""
    wins = np.asarray(wins, dtype=float)
    shape, m = wins.shape[:-2], wins.shape[-1]
    flat = wins.reshape(-1, m, m)
    finite = _reaches_all(flat > 0)
    # Tables with no finite MLE are fitted as all-ties (instant) and reported NaN.
    work = np.where(finite[:, None, None], flat, 1.0 - np.eye(m))
    games = work + np.swapaxes(work, -1, -2)
    won = work.sum(axis=-1)
    theta = np.zeros((flat.shape[0], m))
    converged = np.zeros(flat.shape[0], dtype=bool)
    iterations = 0
    while iterations < MAX_ITERATIONS:
        iterations += 1
        p = 1.0 / (1.0 + np.exp(theta[:, None, :] - theta[:, :, None]))  # p[i, j] = P(i beats j)
        gradient = won - (games * p).sum(axis=-1)
        weight = games * p * np.swapaxes(p, -1, -2)
        laplacian = np.eye(m) * weight.sum(axis=-1)[:, :, None] - weight
        # The likelihood ignores a shift of θ: fix it by asking Σ step = 0 (+ 1·1ᵀ/m).
        step = np.linalg.solve(laplacian + 1.0 / m, gradient[..., None])[..., 0]
        largest = np.abs(step).max(axis=-1, keepdims=True)
        step = step * np.minimum(1.0, MAX_STEP / np.maximum(largest, 1e-300))
        before = _log_likelihood(work, theta)
        for _ in range(30):  # halve the step where it lowered the likelihood
            worse = _log_likelihood(work, theta + step) < before - 1e-12 * np.abs(before)
            if not worse.any():
                break
            step = np.where(worse[:, None], step / 2, step)
        theta = theta + step
        theta -= theta.mean(axis=-1, keepdims=True)
        converged = np.abs(step).max(axis=-1) < TOLERANCE
        if converged.all():
            break
    theta = np.where(finite[:, None], theta, np.nan)
    return theta.reshape(*shape, m), iterations, converged.reshape(shape)


def p_win_matrix(theta: np.ndarray) -> np.ndarray:
    """P(i beats j) = s_i / (s_i + s_j) from log-strengths (..., m) → (..., m, m)."""
    return 1.0 / (1.0 + np.exp(theta[..., None, :] - theta[..., :, None]))


@dataclass(frozen=True)
class BradleyTerry:
    models: tuple[str, ...]
    log_strength: np.ndarray  # (m,), summing to 0
    p_win: np.ndarray  # (m, m)
    comparisons: int
    cases: int
    ties: str
    prior_pseudo_count: float  # added each way to every compared pair; 0 for the plain MLE
    prior_reason: str | None  # why the MLE was infinite, when the prior was used
    iterations: int
    converged: bool
    strength_ci: dict[str, Interval] | None = None
    p_win_ci: dict[str, dict[str, Interval]] | None = None
    bootstrap: BootstrapSettings | None = None

    @property
    def strength(self) -> dict[str, float]:
        return {m: float(np.exp(t)) for m, t in zip(self.models, self.log_strength, strict=True)}

    def ranking(self) -> list[str]:
        """Models from the strongest down (ties of strength by name)."""
        strength = self.strength
        return sorted(self.models, key=lambda m: (-strength[m], m))

    def as_dict(self) -> dict[str, Any]:
        pairs = [(i, j) for i in range(len(self.models)) for j in range(len(self.models))]
        p_win: dict[str, dict[str, float]] = {m: {} for m in self.models}
        for i, j in pairs:
            if i != j:
                p_win[self.models[i]][self.models[j]] = float(self.p_win[i, j])
        data: dict[str, Any] = {
            "strength": self.strength,
            "normalisation": NORMALISATION,
            "p_win": p_win,
            "ties": "half a win for each side" if self.ties == "half" else "left out",
            "prior": {
                "pseudo_count": self.prior_pseudo_count,
                "used": self.prior_reason is not None,
                "reason": self.prior_reason,
                "rule": f"when the MLE is infinite, {PRIOR_PSEUDO_COUNT} wins each way are "
                "added to every pair of models compared",
            },
            "fit": {
                "method": "Newton on log-strengths, step halving",
                "iterations": self.iterations,
                "converged": self.converged,
            },
        }
        if self.strength_ci is not None and self.p_win_ci is not None:
            data["ci95"] = {m: self.strength_ci[m].as_dict() for m in self.models}
            data["p_win_ci95"] = {
                a: {b: interval.as_dict() for b, interval in row.items()}
                for a, row in self.p_win_ci.items()
            }
        return data


def bradley_terry(
    comparisons: Iterable[Comparison],
    *,
    ties: str = "half",
    bootstrap: BootstrapSettings | None = None,
) -> BradleyTerry:
    """Bradley–Terry strengths and win probabilities (see the module docstring for every
    rule); with ``bootstrap``, case-resampled intervals of each strength and each p_win."""
    indexed = comparisons_index(comparisons, ties=ties)
    tables = win_tables(indexed)
    total = tables.sum(axis=0)
    compared = (total + total.T) > 0
    parts = _components(compared, indexed.models)
    if len(parts) > 1:
        described = " | ".join(", ".join(part) for part in parts)
        raise PreferenceError(
            f"the models fall into {len(parts)} groups never compared with each other, "
            f"so they have no common scale: {described}"
        )
    reason = None if _reaches_all(total > 0) else _why_infinite(total, indexed.models)
    pseudo = 0.0 if reason is None else PRIOR_PSEUDO_COUNT
    prior = np.where(compared, pseudo, 0.0)
    theta, iterations, converged = bt_fit(total + prior)
    result = BradleyTerry(
        models=indexed.models,
        log_strength=theta,
        p_win=p_win_matrix(theta),
        comparisons=indexed.n,
        cases=len(indexed.cases),
        ties=ties,
        prior_pseudo_count=pseudo,
        prior_reason=reason,
        iterations=iterations,
        converged=bool(converged),
    )
    if bootstrap is None:
        return result
    strength_ci, p_win_ci = _intervals(indexed.models, tables, prior, bootstrap)
    return replace(result, strength_ci=strength_ci, p_win_ci=p_win_ci, bootstrap=bootstrap)


def _intervals(
    models: tuple[str, ...], tables: np.ndarray, prior: np.ndarray, bootstrap: BootstrapSettings
) -> tuple[dict[str, Interval], dict[str, dict[str, Interval]]]:
    m = len(models)
    off = [(i, j) for i in range(m) for j in range(m) if i != j]
    rows, columns = np.array([i for i, _ in off]), np.array([j for _, j in off])

    def compute(wins: np.ndarray) -> np.ndarray:
        theta, _, _ = bt_fit(wins + prior)
        values = np.concatenate([np.exp(theta), p_win_matrix(theta)[..., rows, columns]], axis=-1)
        return np.moveaxis(values, -1, 0)

    found = [
        spread_or_withheld(interval)
        for interval in cluster_bootstrap(
            statistic=tables_statistic(compute=compute, cluster_tables=tables),
            n_clusters=tables.shape[0],
            settings=bootstrap,
        )
    ]
    strength_ci = dict(zip(models, found[:m], strict=True))
    p_win_ci: dict[str, dict[str, Interval]] = {model: {} for model in models}
    for (i, j), interval in zip(off, found[m:], strict=True):
        p_win_ci[models[i]][models[j]] = interval
    return strength_ci, p_win_ci


@dataclass(frozen=True)
class WinRate:
    models: tuple[str, ...]
    share: np.ndarray  # (m, m) observed share of i's comparisons with j that i won; NaN if none
    counts: np.ndarray  # (m, m) comparisons of i with j

    def as_dict(self) -> dict[str, dict[str, float | None]]:
        return {
            a: {
                b: (None if np.isnan(self.share[i, j]) else float(self.share[i, j]))
                for j, b in enumerate(self.models)
                if i != j
            }
            for i, a in enumerate(self.models)
        }

    def counts_dict(self) -> dict[str, dict[str, int]]:
        return {
            a: {b: int(self.counts[i, j]) for j, b in enumerate(self.models) if i != j}
            for i, a in enumerate(self.models)
        }


def win_rate(comparisons: Iterable[Comparison], *, ties: str = "half") -> WinRate:
    """The observed share of wins of each model against each other, a tie half a win."""
    indexed = comparisons_index(comparisons, ties=ties)
    total = win_tables(indexed).sum(axis=0)
    counts = total + total.T
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, total / np.where(counts > 0, counts, 1), np.nan)
    return WinRate(models=indexed.models, share=share, counts=counts)
