"""How far pairwise choices agree, and what sways them (pure): judge against the experts'
majority, the human baseline, the judge's position consistency and length bias, Kendall's τ
between two rankings, and whether the rubric's higher case score goes to the preferred model.

A choice is compared per case and per unordered pair of models, whichever order each labeller
saw: ``(case, x, y, "b")`` and ``(case, y, x, "a")`` are the same choice (y preferred). Codes:
0 the first model of the pair in name order preferred, 1 the second, 2 a tie. Every interval
resamples cases (``validation.statistics.bootstrap``); a proportion's is widened where the
bootstrap cannot be trusted (``validation.statistics.proportion``).
"""

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from validation.statistics.baseline import others_references
from validation.statistics.bootstrap import cluster_bootstrap
from validation.statistics.coding import MISSING, RatingRecord, ratings_build
from validation.statistics.pairwise import PairwiseAgreement, pairwise_agreement
from validation.statistics.preference import Comparison, PreferenceError, comparisons_check
from validation.statistics.results import BootstrapSettings, Estimate, spread_or_withheld
from validation.statistics.scores import kendall_tau_test
from validation.statistics.tables import proportion_statistic, table_estimates

CHOICES = ("first", "second", "tie")  # of the pair in name order
TIE = 2
LENGTH_UNIT = 100  # characters: the length bias is per 100 characters of difference


class PairKey(NamedTuple):
    case: Hashable
    first: str
    second: str


def choice_code(comparison: Comparison) -> tuple[PairKey, int]:
    """The pair in name order and the choice's code on it."""
    c = comparison
    first, second = sorted((c.model_a, c.model_b))
    if c.winner == "tie":
        return PairKey(c.case, first, second), TIE
    preferred = c.model_a if c.winner == "a" else c.model_b
    return PairKey(c.case, first, second), 0 if preferred == first else 1


def choices_by_pair(comparisons: Iterable[Comparison], *, who: str) -> dict[PairKey, int]:
    """One choice per (case, pair); a second choice of the same pair is refused."""
    choices: dict[PairKey, int] = {}
    for comparison in comparisons_check(comparisons):
        key, code = choice_code(comparison)
        if key in choices:
            raise PreferenceError(f"{who} chose twice between {key.first} and {key.second} "
                                  f"in case {key.case!r}")  # fmt: skip
        choices[key] = code
    return choices


def _case_index(keys: Iterable[PairKey]) -> dict[Hashable, int]:
    return {case: i for i, case in enumerate(dict.fromkeys(k.case for k in keys))}


@dataclass(frozen=True)
class TwoWays:
    """Agreement on three categories (a, b, tie), and on the pairs where neither chose a tie."""

    with_ties: PairwiseAgreement
    without_ties: PairwiseAgreement
    pairs: int  # pairs both labelled
    dropped_for_ties: int  # of those, left out of ``without_ties``

    def as_dict(self) -> dict[str, Any]:
        def brief(found: PairwiseAgreement) -> dict[str, Any]:
            kappa = found.cohen_kappa  # a proportion's interval is never of zero width; κ's is
            kappa = replace(kappa, interval=spread_or_withheld(kappa.interval))
            return {"n": found.n, "agreement": found.agreement.as_dict(), "kappa": kappa.as_dict()}

        return {
            "pairs": self.pairs,
            "with_ties": brief(self.with_ties),
            "without_ties": brief(self.without_ties)
            | {"rule": "pairs where either side chose a tie are left out"},
            "dropped_for_ties": self.dropped_for_ties,
        }


def _two_ways(
    reference: np.ndarray, labeller: np.ndarray, clusters: np.ndarray, bootstrap
) -> TwoWays:
    both = (reference != MISSING) & (labeller != MISSING)
    decided = both & (reference != TIE) & (labeller != TIE)
    return TwoWays(
        with_ties=pairwise_agreement(
            reference=reference,
            predicted=labeller,
            categories=CHOICES,
            clusters=clusters,
            bootstrap=bootstrap,
        ),
        without_ties=pairwise_agreement(
            reference=np.where(decided, reference, MISSING),
            predicted=np.where(decided, labeller, MISSING),
            categories=CHOICES[:2],
            clusters=clusters,
            bootstrap=bootstrap,
        ),
        pairs=int(both.sum()),
        dropped_for_ties=int((both & ~decided).sum()),
    )


def choice_agreement(
    *,
    reference: Iterable[Comparison],
    labeller: Iterable[Comparison],
    bootstrap: BootstrapSettings | None = None,
) -> TwoWays:
    """Agreement and Cohen's κ of ``labeller`` (the judge) with ``reference`` (the experts'
    majority) on the pairs both chose on, with ties and without them."""
    ref = choices_by_pair(reference, who="the reference")
    lab = choices_by_pair(labeller, who="the labeller")
    keys = [k for k in ref if k in lab]
    cases = _case_index(keys)
    return _two_ways(
        np.array([ref[k] for k in keys], dtype=np.int64),
        np.array([lab[k] for k in keys], dtype=np.int64),
        np.array([cases[k.case] for k in keys], dtype=np.int64),
        bootstrap,
    )


class RatedComparison(NamedTuple):
    case: Hashable
    model_a: str
    model_b: str
    rater: str
    winner: str


def human_baseline(
    ratings: Iterable[RatedComparison], *, bootstrap: BootstrapSettings | None = None
) -> TwoWays:
    """Each expert against the majority of the other two (MT-Bench's human baseline): on
    pairs with exactly three choices, the reference for rater r is the other two's common
    choice; where those two differ the pair is skipped for r. Pooled over raters."""
    records = []
    for rated in map(RatedComparison._make, ratings):
        comparison = Comparison(rated.case, rated.model_a, rated.model_b, rated.winner)
        key, code = choice_code(comparisons_check([comparison])[0])
        records.append(RatingRecord(key.case, (key.first, key.second), rated.rater, code))
    table = ratings_build(records=records, categories=range(len(CHOICES)))
    references = others_references(codes=table.codes)
    raters = table.codes.shape[1]
    return _two_ways(
        references.ravel(),
        table.codes.ravel(),
        np.repeat(table.clusters, raters),
        bootstrap,
    )


def _share(
    *, successes: np.ndarray, trials: np.ndarray, bootstrap: BootstrapSettings | None, why: str
) -> Estimate:
    """Σ successes / Σ trials over cases (per-case counts), with its case-clustered interval."""
    statistic = proportion_statistic(
        "share",
        successes=lambda t: t[..., 0],
        trials=lambda t: t[..., 1],
        explain=lambda t: why,
        count=lambda t: round(float(t[..., 1])),
    )
    tables = np.stack([successes, trials], axis=-1).astype(float).reshape(-1, 2)
    if tables.shape[0] == 0:
        tables = np.zeros((1, 2))
    return table_estimates(
        statistics={"share": statistic}, cluster_tables=tables, bootstrap=bootstrap
    )["share"]


def _per_case(cases: dict[Hashable, int], keys, values) -> np.ndarray:
    counts = np.zeros(len(cases))
    np.add.at(counts, [cases[k] for k in keys], values)
    return counts


@dataclass(frozen=True)
class PositionConsistency:
    consistent: Estimate  # share of pairs with the same choice in both orders
    first_shown_wins: Estimate  # share of decisive verdicts won by the response shown first
    combined: list[Comparison]  # one per pair, in name order: a flip is a tie
    unpaired: int  # pairs judged in one order only (left out)

    def as_dict(self) -> dict[str, Any]:
        return {
            "consistent": self.consistent.as_dict(),
            "first_shown_wins": self.first_shown_wins.as_dict(),
            "unpaired": self.unpaired,
            "rule": "a pair is consistent when both orders give the same choice (ties "
            "included); an inconsistent pair counts as a tie",
        }


def position_consistency(
    verdicts: Iterable[Comparison], *, bootstrap: BootstrapSettings | None = None
) -> PositionConsistency:
    """A judge's verdicts given in both orders: how often swapping the order keeps the
    choice, and how often the response shown first wins a decisive verdict."""
    orders: dict[PairKey, dict[tuple[str, str], int]] = {}
    checked = comparisons_check(verdicts)
    for c in checked:
        key, code = choice_code(c)
        seen = orders.setdefault(key, {})
        if (c.model_a, c.model_b) in seen:
            raise PreferenceError(f"the pair {c.model_a}, {c.model_b} of case {c.case!r} is "
                                  "judged twice in the same order")  # fmt: skip
        seen[(c.model_a, c.model_b)] = code
    paired = {k: list(v.values()) for k, v in orders.items() if len(v) == 2}
    cases = _case_index(paired)
    same = [int(a == b) for a, b in paired.values()]
    combined = [
        Comparison(k.case, k.first, k.second, ("a", "b", "tie")[a if a == b else TIE])
        for k, (a, b) in paired.items()
    ]
    decisive = [c for c in checked if c.winner != "tie"]
    decisive_cases = _case_index(choice_code(c)[0] for c in decisive)
    return PositionConsistency(
        consistent=_share(
            successes=_per_case(cases, [k.case for k in paired], same),
            trials=_per_case(cases, [k.case for k in paired], [1] * len(paired)),
            bootstrap=bootstrap,
            why="no pair was judged in both orders",
        ),
        first_shown_wins=_share(
            successes=_per_case(
                decisive_cases, [c.case for c in decisive], [c.winner == "a" for c in decisive]
            ),
            trials=_per_case(decisive_cases, [c.case for c in decisive], [1] * len(decisive)),
            bootstrap=bootstrap,
            why="no verdict chose a side",
        ),
        combined=combined,
        unpaired=len(orders) - len(paired),
    )


class LengthComparison(NamedTuple):
    case: Hashable
    model_a: str
    model_b: str
    winner: str
    length_a: float  # characters of the response shown as A
    length_b: float


def separated(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Whether a threshold on x splits the chosen from the rest (quasi-complete separation,
    one class empty included), where the logistic MLE is at infinity; per row of ``weights``."""
    present = np.asarray(weights) > 0
    ones, zeros = present & (y == 1), present & (y == 0)
    high_zero = np.where(zeros, x, -np.inf).max(axis=-1, initial=-np.inf)
    low_one = np.where(ones, x, np.inf).min(axis=-1, initial=np.inf)
    high_one = np.where(ones, x, -np.inf).max(axis=-1, initial=-np.inf)
    low_zero = np.where(zeros, x, np.inf).min(axis=-1, initial=np.inf)
    return (high_zero <= low_one) | (high_one <= low_zero)


def logistic_fit(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Intercept and slope (..., 2) of the weighted logistic regression of y on x
    (Newton–Raphson; ``weights`` (..., n)); NaN where the data are separated."""
    design = np.stack([np.ones_like(x), x], axis=-1)  # (n, 2)
    weights = np.asarray(weights, dtype=float)
    finite = ~separated(x, y, weights)
    # Separated rows are fitted on all-equal weights (harmless) and reported NaN.
    weights = np.where(finite[..., None], weights, 1.0)
    beta = np.zeros((*weights.shape[:-1], 2))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(beta @ design.T)))
        gradient = (weights * (y - p)) @ design
        curvature = np.einsum("...n,ni,nj->...ij", weights * p * (1 - p), design, design)
        step = np.linalg.solve(curvature + 1e-12 * np.eye(2), gradient[..., None])[..., 0]
        beta = beta + np.clip(step, -5.0, 5.0)
        if np.abs(step[finite]).max(initial=0.0) < 1e-10:
            break
    return np.where(finite[..., None], beta, np.nan)


@dataclass(frozen=True)
class LengthBias:
    slopes: dict[str, Estimate]  # per labeller, and "difference" (first − second)
    intercepts: dict[str, Estimate]
    ties_left_out: dict[str, int]
    per: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "slope": {k: v.as_dict() for k, v in self.slopes.items()},
            "intercept": {k: v.as_dict() for k, v in self.intercepts.items()},
            "ties_left_out": self.ties_left_out,
            "model": f"logit P(A chosen) = intercept + slope × (length A − length B) / {self.per}"
            " characters; ties left out",
        }


def length_bias(
    labellers: Mapping[str, Iterable[LengthComparison]],
    *,
    per: int = LENGTH_UNIT,
    bootstrap: BootstrapSettings | None = None,
) -> LengthBias:
    """Logistic regression of "A chosen" on the length difference for each labeller (for
    instance the judge and the experts), and, for two, the difference of their slopes; one
    paired case bootstrap for all (the same cases resampled for every labeller)."""
    names = list(labellers)
    data = {name: [LengthComparison(*r) for r in records] for name, records in labellers.items()}
    for records in data.values():
        comparisons_check(Comparison(*r[:4]) for r in records)
    cases = {k: i for i, k in enumerate(dict.fromkeys(r.case for rs in data.values() for r in rs))}
    fits = []
    for name in names:
        kept = [r for r in data[name] if r.winner != "tie"]
        x = np.array([(r.length_a - r.length_b) / per for r in kept], dtype=float)
        y = np.array([r.winner == "a" for r in kept], dtype=float)
        fits.append((x, y, np.array([cases[r.case] for r in kept], dtype=np.int64)))

    def statistic(case_weights: np.ndarray) -> np.ndarray:
        betas = [logistic_fit(x, y, case_weights[..., c]) for x, y, c in fits]
        values = [b[..., k] for b in betas for k in (1, 0)]
        if len(betas) == 2:
            values.append(betas[0][..., 1] - betas[1][..., 1])
        return np.stack(values)

    point = statistic(np.ones(len(cases)))
    keys = [(name, part) for name in names for part in ("slope", "intercept")]
    if len(names) == 2:
        keys.append(("difference", "slope"))
    intervals = (
        cluster_bootstrap(statistic=statistic, n_clusters=len(cases), settings=bootstrap)
        if bootstrap is not None and len(cases)
        else [None] * len(keys)
    )
    slopes: dict[str, Estimate] = {}
    intercepts: dict[str, Estimate] = {}
    sizes = {name: int(fit[0].size) for name, fit in zip(names, fits, strict=True)}
    sizes["difference"] = min(sizes.values(), default=0)
    for (name, part), value, interval in zip(keys, point, intervals, strict=True):
        target = slopes if part == "slope" else intercepts
        if not sizes[name]:
            target[name] = Estimate(value=None, n=0, reason="no choice of a side (ties left out)")
        elif np.isfinite(value):
            target[name] = Estimate(value=float(value), n=sizes[name], interval=interval)
        else:
            target[name] = Estimate(
                value=None,
                n=sizes[name],
                reason="the choices are separated by length (one side of a threshold always "
                "chosen): the estimate is infinite",
            )
    ties = {name: sum(r.winner == "tie" for r in data[name]) for name in names}
    return LengthBias(slopes=slopes, intercepts=intercepts, ties_left_out=ties, per=per)


def ranking_tau(first: Mapping[str, float], second: Mapping[str, float]) -> dict[str, Any]:
    """Kendall's τ-b between two rankings (model → strength) over the models both rank."""
    models = sorted(set(first) & set(second))
    found = kendall_tau_test([first[m] for m in models], [second[m] for m in models])
    defined = bool(np.isfinite(found.statistic))
    return {
        "models": models,
        "n": len(models),
        "tau_b": float(found.statistic) if defined else None,
        "p_value": float(found.p_value) if defined else None,
    }


@dataclass(frozen=True)
class RubricPreference:
    share: Estimate  # of the pairs kept, the share where the higher rubric score is preferred
    preference_ties: int  # pairs left out: the experts chose a tie
    score_ties: int  # pairs left out: both models have the same rubric case score
    unscored: int  # pairs left out: a model has no rubric case score there

    def as_dict(self) -> dict[str, Any]:
        return {
            "share": self.share.as_dict(),
            "left_out": {
                "preference_ties": self.preference_ties,
                "score_ties": self.score_ties,
                "unscored": self.unscored,
            },
            "rule": "pairs where the experts chose a tie, or the two rubric case scores are "
            "equal or missing, are left out",
        }


def rubric_preference(
    preferences: Iterable[Comparison],
    *,
    case_scores: Mapping[tuple[Hashable, str], float | None],
    bootstrap: BootstrapSettings | None = None,
) -> RubricPreference:
    """How often the model with the higher rubric case score (``(case, model) → score``) is
    the one the experts prefer (their majority choice per pair)."""
    choices = choices_by_pair(preferences, who="the experts")
    kept: list[tuple[PairKey, bool]] = []
    counts = {"tie": 0, "equal": 0, "unscored": 0}
    for key, code in choices.items():
        a, b = case_scores.get((key.case, key.first)), case_scores.get((key.case, key.second))
        if code == TIE:
            counts["tie"] += 1
        elif a is None or b is None:
            counts["unscored"] += 1
        elif a == b:
            counts["equal"] += 1
        else:
            kept.append((key, (code == 0) == (a > b)))
    cases = _case_index(k for k, _ in kept)
    return RubricPreference(
        share=_share(
            successes=_per_case(cases, [k.case for k, _ in kept], [agree for _, agree in kept]),
            trials=_per_case(cases, [k.case for k, _ in kept], [1] * len(kept)),
            bootstrap=bootstrap,
            why="no pair has a preferred model and two different rubric scores",
        ),
        preference_ties=counts["tie"],
        score_ties=counts["equal"],
        unscored=counts["unscored"],
    )
