"""Latent-class estimate of each rater's sensitivity and specificity (Dawid & Skene 1979), EM.

The majority of three experts is itself noisy, so measuring the judge against it counts the
gold's errors as the judge's. Here the true label of each item is a latent binary class; each
rater (an expert pseudonym, and optionally the judge) has its own sensitivity P(says met |
true met) and specificity P(says not met | true not met), raters independent given the
class. EM finds the maximum-likelihood parameters and each item's posterior P(true met).

- Start: each item's share of positive votes (the soft majority; a tie starts at 0.5).
- One iteration: an M-step (parameters from the posteriors), then an E-step (posteriors from
  the parameters); stop when no item's posterior moves by more than ``tolerance`` (EM creeps
  near its optimum, so a change in log-likelihood says too little), or after
  ``max_iterations``. Bootstrap refits stop at ``REFIT_TOLERANCE`` (an interval needs less)
  and are accelerated by SQUAREM (Varadhan & Roland 2008): near a boundary (a specificity
  going to 1) plain EM creeps for thousands of iterations, SQUAREM takes some fifty; the
  stopping rule is the same plain EM step.
  The figures reported are one last M-step on the final posteriors, so they and the
  posteriors belong together.
- The judge is held out by default: the experts' model gives the posteriors and the judge's
  sensitivity and specificity are that same M-step on them, so the judge cannot pull the
  latent truth towards itself; several held-out judges share the one fit. ``judge_as_rater``
  fits one judge as one more rater instead.
- Label switching: EM cannot tell a class from its complement. The raters are assumed better
  than chance on average (mean Youden J = se + sp − 1 > 0); a solution below that is relabelled
  (in every bootstrap refit too).
- Undefined is said, never invented: fewer than three raters (two binary raters do not identify
  the model), or fewer than ``MIN_EXPECTED`` expected latent positives (negatives) among a
  rater's items gives a null sensitivity (specificity) with a reason.
- Intervals: the case-clustered bootstrap (``cluster_bootstrap``: the items of one case are
  resampled together, and each resample is refitted by EM from the full fit's posteriors);
  then, as for every proportion, ``proportion_interval`` on the posterior-expected counts, so
  no interval has zero width at 0 or 1.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from validation.statistics.bootstrap import cluster_bootstrap
from validation.statistics.coding import MISSING
from validation.statistics.proportion import proportion_interval
from validation.statistics.results import BootstrapSettings, Interval
from validation.statistics.tables import cluster_sums, ratio

TOLERANCE = 1e-10  # the largest change of a posterior that stops EM
REFIT_TOLERANCE = 1e-6
MAX_ITERATIONS = 5000
MIN_RATERS = 3
# A sensitivity is a ratio over the latent positives among a rater's items; with less than one
# expected positive it is the ratio of two posterior tails, not an estimate.
MIN_EXPECTED = 1.0
HELD_OUT, AS_RATER = "held_out", "rater"
ASSUMPTION = "raters better than chance on average (mean Youden J = se + sp - 1 > 0)"
_CLIP = 1e-12  # a parameter at exactly 0 or 1 enters the likelihood this far inside
_CHUNK = 500  # resamples refitted at once: bounds memory at chunk × items


@dataclass(frozen=True)
class LatentEstimate:
    value: float | None
    expected_n: float  # the posterior-expected count the ratio is over
    reason: str | None = None
    interval: Interval | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"estimate": self.value, "expected_n": self.expected_n}
        data["ci95"] = None
        if self.interval is not None:
            data["ci95"] = {
                "low": self.interval.low,
                "high": self.interval.high,
                "method": self.interval.method,
            }
            if self.interval.reason:
                data["ci95"]["reason"] = self.interval.reason
        if self.reason is not None:
            data["reason"] = self.reason
        return data


@dataclass(frozen=True)
class RaterAccuracy:
    items: int  # items this rater labelled among the modelled ones
    sensitivity: LatentEstimate
    specificity: LatentEstimate

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "sensitivity": self.sensitivity.as_dict(),
            "specificity": self.specificity.as_dict(),
        }


@dataclass(frozen=True)
class LatentClass:
    judge_mode: str  # HELD_OUT or AS_RATER
    raters: dict[str, RaterAccuracy]  # the experts
    judges: tuple[RaterAccuracy, ...]  # one per held-out judge column, or the judge as a rater
    prevalence: LatentEstimate
    posterior: np.ndarray  # (n_items,) P(true = positive); NaN where no modelled rater labelled
    iterations: int
    converged: bool
    log_likelihood: float
    n_items: int  # items with at least one modelled label
    unconverged_refits: int  # bootstrap and jackknife refits that hit max_iterations

    @property
    def method(self) -> str:
        return latent_class_method(self.judge_mode)

    @property
    def judge(self) -> RaterAccuracy | None:
        """The one judge's figures (None without a judge)."""
        return self.judges[0] if self.judges else None


def latent_class_method(judge_mode: str) -> str:
    """The method in words, naming what was done with the judge."""
    judge = {
        HELD_OUT: "judge held out, estimated against the experts' latent posterior",
        AS_RATER: "judge included as one more rater",
    }[judge_mode]
    return f"Dawid-Skene latent class model (binary), EM; {judge}"


@dataclass(frozen=True)
class _Fit:
    posterior: np.ndarray  # (B, n)
    log_likelihood: np.ndarray  # (B,)
    iterations: int
    converged: np.ndarray  # (B,) bool


@dataclass(frozen=True)
class _Parameters:
    sensitivity: np.ndarray  # (B, R), NaN where the positives' mass is ~0
    specificity: np.ndarray
    positives: np.ndarray  # (B, R) expected latent positives among each rater's items
    negatives: np.ndarray
    prevalence: np.ndarray  # (B,)


def latent_class_fit(
    *,
    codes: np.ndarray,
    positive: int,
    raters: Sequence[str],
    clusters: np.ndarray,
    judge: np.ndarray | None = None,
    judge_as_rater: bool = False,
    bootstrap: BootstrapSettings | None = None,
    tolerance: float = TOLERANCE,
    max_iterations: int = MAX_ITERATIONS,
) -> LatentClass:
    """Dawid–Skene EM on binary labels (see the module docstring).

    ``codes`` (n_items, n_raters) holds category codes, ``MISSING`` where unrated; ``positive``
    is the code of "met" and any other code is "not met". ``raters`` names the columns.
    ``clusters`` (n_items,) indexes each item's cluster (its case), which the bootstrap
    resamples. ``judge`` (n_items,) holds a judge's codes, or (n_items, J) several judges',
    held out unless ``judge_as_rater`` (one judge only). Raises ``ValueError`` below
    ``MIN_RATERS`` modelled raters.
    """
    codes = np.asarray(codes)
    clusters = np.asarray(clusters, dtype=np.intp)
    include = judge is not None and judge_as_rater
    if judge is not None:
        judge = np.asarray(judge).reshape(codes.shape[0], -1)
        if include and judge.shape[1] != 1:
            raise ValueError("one judge at most is fitted as a rater")
    columns = np.column_stack([codes, judge]) if include else codes
    pos, neg = _indicators(columns, positive)
    if pos.shape[1] < MIN_RATERS:
        raise ValueError(
            f"{pos.shape[1]} rater(s): Dawid-Skene needs at least {MIN_RATERS} "
            "(two binary raters do not identify the model)"
        )
    held_out = None if judge is None or include else _indicators(judge, positive)
    modelled = (pos + neg).sum(axis=1) > 0
    n_clusters = int(clusters.max(initial=-1)) + 1
    patterns = _patterns_build(
        columns=columns if held_out is None else np.column_stack([columns, judge]),
        positive=positive,
        n_modelled=pos.shape[1],
        clusters=clusters,
        n_clusters=n_clusters,
        modelled=modelled,
    )
    counts_per_pattern = patterns.per_cluster.sum(axis=0)[None, :]
    fit = _em(
        pos=patterns.pos,
        neg=patterns.neg,
        weights=counts_per_pattern,
        start=_vote_share(patterns.pos, patterns.neg)[None, :],
        tolerance=tolerance,
        max_iterations=max_iterations,
    )
    unconverged = [0]

    def statistic(cluster_weights: np.ndarray) -> np.ndarray:
        return _statistic(
            cluster_weights,
            patterns=patterns,
            start=fit.posterior[0],
            tolerance=max(tolerance, REFIT_TOLERANCE),
            max_iterations=max_iterations,
            unconverged=unconverged,
        )

    rows = _rows(fit.posterior, counts_per_pattern, patterns)
    intervals: list[Interval | None] = [None] * len(rows)
    if bootstrap is not None:
        intervals = list(
            cluster_bootstrap(statistic=statistic, n_clusters=n_clusters, settings=bootstrap)
        )
    posterior = np.where(modelled, fit.posterior[0][patterns.inverse], np.nan)
    counts = _expected_counts(np.nan_to_num(posterior), pos, neg, held_out, modelled)
    estimates = [
        _estimate(value[0], successes, trials, what, interval, clusters, n_clusters)
        for value, (successes, trials, what), interval in zip(rows, counts, intervals, strict=True)
    ]
    accuracy, judges = _accuracies(estimates, pos + neg, held_out, modelled, include)
    return LatentClass(
        judge_mode=AS_RATER if include else HELD_OUT,
        raters=dict(zip(raters, accuracy, strict=True)),
        judges=judges,
        prevalence=estimates[-1],
        posterior=posterior,
        iterations=fit.iterations,
        converged=bool(fit.converged[0]),
        log_likelihood=float(fit.log_likelihood[0]),
        n_items=int(modelled.sum()),
        unconverged_refits=unconverged[0],
    )


def _accuracies(
    estimates: list[LatentEstimate],
    seen: np.ndarray,
    held_out: tuple[np.ndarray, np.ndarray] | None,
    modelled: np.ndarray,
    include: bool,
) -> tuple[list[RaterAccuracy], tuple[RaterAccuracy, ...]]:
    """The figures of ``_rows``' layout, per expert and per judge (the last modelled rater
    when included; when held out, the J judges' sensitivities after the raters' figures, then
    their specificities)."""
    r = seen.shape[1]
    items = seen.sum(axis=0).astype(int)
    accuracy = [RaterAccuracy(int(items[j]), estimates[j], estimates[r + j]) for j in range(r)]
    if include:
        return accuracy[:-1], (accuracy[-1],)
    if held_out is None:
        return accuracy, ()
    judge_items = (held_out[0] + held_out[1])[modelled].sum(axis=0).astype(int)
    n = len(judge_items)
    return accuracy, tuple(
        RaterAccuracy(int(judge_items[j]), estimates[2 * r + j], estimates[2 * r + n + j])
        for j in range(n)
    )


@dataclass(frozen=True)
class _Patterns:
    """The distinct label patterns: items alike in every label share one posterior, so EM
    runs over patterns weighted by how many items show each (far fewer than the items)."""

    pos: np.ndarray  # (P, R) said met, per modelled rater
    neg: np.ndarray  # (P, R) said not met
    held_out: tuple[np.ndarray, np.ndarray] | None  # the held-out judges' (P, J) each
    per_cluster: np.ndarray  # (n_clusters, P) modelled items of each pattern in each cluster
    inverse: np.ndarray  # (n_items,) each item's pattern


def _patterns_build(
    *,
    columns: np.ndarray,
    positive: int,
    n_modelled: int,
    clusters: np.ndarray,
    n_clusters: int,
    modelled: np.ndarray,
) -> _Patterns:
    """Patterns of ``columns`` (the modelled raters, then the held-out judges if any)."""
    distinct, inverse = np.unique(np.asarray(columns), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    pos, neg = _indicators(distinct, positive)
    per_cluster = np.zeros((n_clusters, distinct.shape[0]))
    np.add.at(per_cluster, (clusters[modelled], inverse[modelled]), 1.0)
    held_out = None
    if distinct.shape[1] > n_modelled:
        held_out = (pos[:, n_modelled:], neg[:, n_modelled:])
    return _Patterns(
        pos=pos[:, :n_modelled],
        neg=neg[:, :n_modelled],
        held_out=held_out,
        per_cluster=per_cluster,
        inverse=inverse,
    )


def _indicators(codes: np.ndarray, positive: int) -> tuple[np.ndarray, np.ndarray]:
    """(said met, said not met) as 0/1 floats, (n_items, n_raters) each."""
    codes = np.asarray(codes)
    pos = (codes == positive).astype(float)
    neg = ((codes != positive) & (codes != MISSING)).astype(float)
    return pos, neg


def _vote_share(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Each item's share of "met" votes, 0.5 where nobody voted."""
    votes = (pos + neg).sum(axis=1)
    share = ratio(pos.sum(axis=1), votes)
    return np.where(np.isnan(share), 0.5, share)


def _parameters(
    posterior: np.ndarray, weights: np.ndarray, pos: np.ndarray, neg: np.ndarray
) -> _Parameters:
    """The M-step: each rater's sensitivity and specificity and the prevalence, from item
    posteriors (B, n) weighted by how often each item was drawn (B, n)."""
    positive_mass = weights * posterior
    negative_mass = weights * (1 - posterior)
    seen = pos + neg
    positives = positive_mass @ seen
    negatives = negative_mass @ seen
    return _Parameters(
        sensitivity=ratio(positive_mass @ pos, positives),
        specificity=ratio(negative_mass @ neg, negatives),
        positives=positives,
        negatives=negatives,
        prevalence=ratio(positive_mass.sum(axis=1), weights.sum(axis=1)),
    )


def _inside(p: np.ndarray) -> np.ndarray:
    # An undefined parameter (no mass to estimate it from) says nothing: 0.5 each way.
    return np.clip(np.where(np.isnan(p), 0.5, p), _CLIP, 1 - _CLIP)


def _log_terms(
    parameters: _Parameters, pos: np.ndarray, neg: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """log P(item's labels, true met) and log P(item's labels, true not met), (B, n) each."""
    se, sp = _inside(parameters.sensitivity), _inside(parameters.specificity)
    prevalence = _inside(parameters.prevalence)[:, None]
    log_met = np.log(prevalence) + np.log(se) @ pos.T + np.log1p(-se) @ neg.T
    log_not = np.log1p(-prevalence) + np.log1p(-sp) @ pos.T + np.log(sp) @ neg.T
    return log_met, log_not


def _posterior(parameters: _Parameters, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """The E-step: each item's posterior P(true met | its labels), (B, n)."""
    log_met, log_not = _log_terms(parameters, pos, neg)
    with np.errstate(over="ignore"):  # exp overflowing to inf is a posterior of 0, as it is
        return 1 / (1 + np.exp(log_not - log_met))


def _log_likelihood(
    parameters: _Parameters, weights: np.ndarray, pos: np.ndarray, neg: np.ndarray
) -> np.ndarray:
    """The observed-data log-likelihood, Σ_i w_i log P(item i's labels), (B,)."""
    return (weights * np.logaddexp(*_log_terms(parameters, pos, neg))).sum(axis=1)


def _em(
    *,
    pos: np.ndarray,
    neg: np.ndarray,
    weights: np.ndarray,
    start: np.ndarray,
    tolerance: float,
    max_iterations: int,
    accelerated: bool = False,
) -> _Fit:
    """EM for B weighted copies of the data at once (weights (B, n)), from ``start``. A copy
    has converged when one plain EM step moves none of its drawn items' posteriors by more
    than ``tolerance``; ``accelerated`` moves the others on by a SQUAREM step instead."""
    posterior = np.array(np.broadcast_to(start, weights.shape), dtype=float)
    converged = np.zeros(weights.shape[0], dtype=bool)
    active = np.arange(weights.shape[0])  # copies still moving: only they are iterated
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 (the count is reported)
        drawn, before = weights[active], posterior[active]
        after = _em_step(before, drawn, pos, neg)
        # Items a resample did not draw do not decide its convergence.
        moved = np.where(drawn > 0, np.abs(after - before), 0.0).max(axis=1, initial=0.0)
        done = moved <= tolerance
        if accelerated and not done.all():
            going = ~done
            after[going] = _squarem(before[going], after[going], drawn[going], pos, neg)
        posterior[active] = after
        converged[active[done]] = True
        active = active[~done]
        if active.size == 0:
            break
    parameters = _parameters(posterior, weights, pos, neg)
    log_likelihood = _log_likelihood(parameters, weights, pos, neg)
    youden = parameters.sensitivity + parameters.specificity - 1
    defined = np.isfinite(youden)
    flipped = np.where(defined, youden, 0.0).sum(axis=1) < 0  # the mean's sign
    posterior[flipped] = 1 - posterior[flipped]
    return _Fit(posterior, log_likelihood, iterations, converged)


def _em_step(
    posterior: np.ndarray, weights: np.ndarray, pos: np.ndarray, neg: np.ndarray
) -> np.ndarray:
    """One EM iteration: the M-step on ``posterior``, then the E-step."""
    return _posterior(_parameters(posterior, weights, pos, neg), pos, neg)


def _squarem(
    start: np.ndarray, first: np.ndarray, weights: np.ndarray, pos: np.ndarray, neg: np.ndarray
) -> np.ndarray:
    """One SQUAREM step (Varadhan & Roland 2008, SqS3) per copy from ``start`` and its EM step
    ``first``: a second EM step, an extrapolation along the two (step length at least that
    of plain EM, posteriors kept in [0, 1]), then one EM step from there; where that has a
    lower likelihood than the two plain steps, the two plain steps (EM never goes down)."""
    second = _em_step(first, weights, pos, neg)
    r = first - start
    v = second - first - r
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = -np.sqrt((r * r).sum(axis=1) / (v * v).sum(axis=1))
    alpha = np.where(np.isfinite(alpha), np.minimum(alpha, -1.0), -1.0)[:, None]
    jumped = np.clip(start - 2 * alpha * r + alpha**2 * v, 0.0, 1.0)
    landed = _em_step(jumped, weights, pos, neg)

    def likelihood(posterior: np.ndarray) -> np.ndarray:
        return _log_likelihood(_parameters(posterior, weights, pos, neg), weights, pos, neg)

    worse = likelihood(landed) < likelihood(second)
    landed[worse] = second[worse]
    return landed


def _rows(posterior: np.ndarray, weights: np.ndarray, patterns: "_Patterns") -> np.ndarray:
    """The reported figures (m, B): sensitivities, specificities, the held-out judges'
    sensitivities and then their specificities, the prevalence; NaN below ``MIN_EXPECTED``
    expected positives (negatives)."""
    fitted = _parameters(posterior, weights, patterns.pos, patterns.neg)
    parts = [
        np.where(fitted.positives >= MIN_EXPECTED, fitted.sensitivity, np.nan).T,
        np.where(fitted.negatives >= MIN_EXPECTED, fitted.specificity, np.nan).T,
    ]
    if patterns.held_out is not None:
        judge = _parameters(posterior, weights, *patterns.held_out)
        parts += [
            np.where(judge.positives >= MIN_EXPECTED, judge.sensitivity, np.nan).T,
            np.where(judge.negatives >= MIN_EXPECTED, judge.specificity, np.nan).T,
        ]
    parts.append(fitted.prevalence[None, :])
    return np.concatenate(parts, axis=0)


def _statistic(
    cluster_weights: np.ndarray,
    *,
    patterns: "_Patterns",
    start: np.ndarray,
    tolerance: float,
    max_iterations: int,
    unconverged: list[int],
) -> np.ndarray:
    """The figures of ``_rows`` refitted under cluster weights (..., n_clusters) → (m, ...)."""
    cluster_weights = np.asarray(cluster_weights, dtype=float)
    leading = cluster_weights.shape[:-1]
    flat = cluster_weights.reshape(-1, cluster_weights.shape[-1])
    out = []
    for begin in range(0, flat.shape[0], _CHUNK):
        weights = flat[begin : begin + _CHUNK] @ patterns.per_cluster
        fit = _em(
            pos=patterns.pos,
            neg=patterns.neg,
            weights=weights,
            start=start[None, :],
            tolerance=tolerance,
            max_iterations=max_iterations,
            accelerated=True,
        )
        unconverged[0] += int((~fit.converged).sum())
        out.append(_rows(fit.posterior, weights, patterns))
    return np.concatenate(out, axis=1).reshape((-1, *leading))


def _expected_counts(
    posterior: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    held_out: tuple[np.ndarray, np.ndarray] | None,
    modelled: np.ndarray,
) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """Per reported figure, per item (successes, trials) as posterior-expected counts, and
    what the trials are (for a reason)."""
    columns = [(pos[:, j], neg[:, j]) for j in range(pos.shape[1])]
    judge = [] if held_out is None else list(zip(held_out[0].T, held_out[1].T, strict=True))
    judge = [(p * modelled, n * modelled) for p, n in judge]

    def positives(p: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
        return posterior * p, posterior * (p + n), "positives"

    def negatives(p: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
        return (1 - posterior) * n, (1 - posterior) * (p + n), "negatives"

    rows = [positives(*c) for c in columns] + [negatives(*c) for c in columns]
    rows += [positives(*c) for c in judge] + [negatives(*c) for c in judge]
    rows.append((posterior * modelled, modelled.astype(float), "items"))
    return rows


def _estimate(
    value: float,
    successes: np.ndarray,
    trials: np.ndarray,
    what: str,
    interval: Interval | None,
    clusters: np.ndarray,
    n_clusters: int,
) -> LatentEstimate:
    expected = float(trials.sum())
    if not np.isfinite(value):
        if expected == 0:
            reason = "no labels among the modelled items"
        else:
            reason = (
                f"{expected:.3g} expected latent {what} among its labels: fewer than "
                f"{MIN_EXPECTED:g}, so the ratio is not an estimate"
            )
        return LatentEstimate(value=None, expected_n=expected, reason=reason)
    if interval is not None:
        per_cluster = [
            cluster_sums(item_tables=x, clusters=clusters, n_clusters=n_clusters)
            for x in (successes, trials)
        ]
        # A posterior tail of 1e-15 is not a cluster holding trials.
        per_cluster = [np.where(per_cluster[1] < 1e-9, 0.0, x) for x in per_cluster]
        interval = proportion_interval(
            successes=per_cluster[0], trials=per_cluster[1], bootstrap=interval
        )
    return LatentEstimate(value=float(value), expected_n=expected, interval=interval)
