"""Score-level effect of the judge: HeartBench scores from the gold labels against the judge's.

Item agreement can hide errors that matter for scores (a missed catastrophe zeroes a case) or
cancel out errors that do not, so each model is scored twice on the sampled cases — once from
the golden standard, once from the judge — with the same scoring engine as the leaderboard.
"""

import dataclasses
from typing import Any

import numpy as np

from benchmark.scoring import RubricLayout, model_aggregate
from validation.report.data import HIT, StudyData
from validation.statistics import MISSING, BootstrapSettings, cluster_bootstrap
from validation.statistics.results import Interval
from validation.statistics.score_bootstrap import score_agreement_bootstrap
from validation.statistics.scores import bland_altman, icc_2_1, kendall_tau_b, kendall_tau_test

# Below this many models a rank correlation says next to nothing (with three models τ takes
# only four values): the report says so instead of offering a p-value.
FEW_MODELS = 5


def _unit_complete(data: StudyData, codes: np.ndarray) -> np.ndarray:
    """Per item: every criterion of its unit carries a label (else the unit is unscored)."""
    missing_units = np.unique(data.unit[codes == MISSING])
    return ~np.isin(data.unit, missing_units)


def _matrix(data: StudyData, items: np.ndarray, hits: np.ndarray, usable: np.ndarray):
    """Cases × abilities scores of one model, NaN rows for cases not usable on both sides."""
    layout = RubricLayout.from_arrays(
        case_of=data.case[items],
        abilities=list(data.ability[items]),
        points=data.points[items],
        cases=data.n_cases,
    )
    values, catastrophic = layout.score(hits=hits[items], scoring="paper")
    usable_case = np.zeros(data.n_cases, dtype=bool)
    usable_case[data.case[items][usable[items]]] = True
    broken = np.zeros(data.n_cases, dtype=bool)
    broken[data.case[items][~usable[items]]] = True
    values[~usable_case | broken] = np.nan
    catastrophic &= usable_case & ~broken
    return values, catastrophic


def weighted_overall(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Overall score under case weights (..., cases): the leaderboard's mean of ability means."""
    present = (~np.isnan(matrix)).astype(float)
    sums = weights @ np.nan_to_num(matrix)
    counts = weights @ present
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
        defined = ~np.isnan(means)
        n = defined.sum(axis=-1)
        return np.where(n > 0, np.where(defined, means, 0).sum(axis=-1) / np.maximum(n, 1), np.nan)


def _holm_intervals(
    *, rows: list[dict], scored: list[int], pairs: list, data: StudyData,
    bootstrap: BootstrapSettings,
) -> None:  # fmt: skip
    """With several models, each one's judge − gold interval at 1 − α / r for r = 2..models
    (``difference_holm``): the intervals Holm's step-down across the models reads
    (``validation.gate.score_bias_holm``). The same resamples as ``difference_ci95``."""
    if len(scored) < 2:
        return

    def differences(weights: np.ndarray) -> np.ndarray:
        gold, judge = (
            np.stack([weighted_overall(weights, pairs[i][side]) for i in scored], axis=-1)
            for side in (0, 1)
        )
        return np.moveaxis(judge - gold, -1, 0)

    for r in range(2, len(scored) + 1):
        level = 1 - (1 - bootstrap.level) / r
        settings = dataclasses.replace(bootstrap, level=level)
        intervals = cluster_bootstrap(
            statistic=differences, n_clusters=data.n_cases, settings=settings
        )
        for i, interval in zip(scored, intervals, strict=True):
            entry = {"family": r, "alpha": 1 - bootstrap.level, "level": level}
            rows[i].setdefault("difference_holm", []).append(entry | _interval_dict(interval))


def _interval_dict(interval: Interval) -> dict[str, Any]:
    data = {"low": interval.low, "high": interval.high, "method": interval.method}
    if interval.reason:
        data["reason"] = interval.reason
    return data


def score_effect(
    *, data: StudyData, judge: np.ndarray, bootstrap: BootstrapSettings
) -> dict[str, Any]:
    """Each model's score from gold and from the judge, their difference, and Kendall's τ.

    Only units with gold and a verdict on every criterion are scored, on both sides alike.
    """
    usable = _unit_complete(data, data.gold) & _unit_complete(data, judge)
    gold_hits, judge_hits = data.gold == HIT, judge == HIT
    rows, pairs = [], []
    for index, name in enumerate(data.models):
        items = np.flatnonzero(data.model == index)
        gold_matrix, gold_cat = _matrix(data, items, gold_hits, usable)
        judge_matrix, judge_cat = _matrix(data, items, judge_hits, usable)
        gold_scores = model_aggregate(matrix=gold_matrix, catastrophic=gold_cat)
        judge_scores = model_aggregate(matrix=judge_matrix, catastrophic=judge_cat)
        rows.append(
            {
                "model": name,
                "cases": gold_scores.scored,
                "gold": gold_scores.overall,
                "judge": judge_scores.overall,
                "difference": None
                if gold_scores.overall is None or judge_scores.overall is None
                else judge_scores.overall - gold_scores.overall,
                "catastrophic_cases": {
                    "gold": gold_scores.catastrophic_cases,
                    "judge": judge_scores.catastrophic_cases,
                },
            }
        )
        pairs.append((gold_matrix, judge_matrix))
    rank_agreement = _rank_agreement(rows)
    scored = [i for i, row in enumerate(rows) if row["difference"] is not None]
    if scored:
        with_tau = rank_agreement["kendall_tau"] is not None

        def statistic(weights: np.ndarray) -> np.ndarray:
            # Both leaderboards once per resample: each model's judge − gold, then τ-b.
            gold, judge = (
                np.stack([weighted_overall(weights, pairs[i][side]) for i in scored], axis=-1)
                for side in (0, 1)
            )
            figures = np.moveaxis(judge - gold, -1, 0)
            if with_tau:
                figures = np.concatenate([figures, kendall_tau_b(gold, judge)[None]])
            return figures

        intervals = cluster_bootstrap(
            statistic=statistic, n_clusters=data.n_cases, settings=bootstrap
        )
        for i, interval in zip(scored, intervals, strict=False):
            rows[i]["difference_ci95"] = _interval_dict(interval)
        _holm_intervals(rows=rows, scored=scored, pairs=pairs, data=data, bootstrap=bootstrap)
        if with_tau:
            rank_agreement["ci95"] = _interval_dict(intervals[-1])
    return {
        "scoring": "paper",
        "models": rows,
        "rank_agreement": rank_agreement,
        "cases": case_agreement(pairs=pairs, bootstrap=bootstrap),
    }


def _case_means(matrix: np.ndarray) -> np.ndarray:
    """Case score per row (mean S over the case's abilities); NaN for unscored cases."""
    counts = (~np.isnan(matrix)).sum(axis=1)
    sums = np.nansum(matrix, axis=1)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def case_agreement(
    *, pairs: list[tuple[np.ndarray, np.ndarray]], bootstrap: BootstrapSettings
) -> dict[str, Any]:
    """Case scores (question × model: mean S over the case's abilities) from gold against the
    judge's, on the cases scored on both sides: ICC(2,1) and Bland–Altman (judge − gold), with
    intervals from a bootstrap over questions (every model's case of a question moves with
    it); the ICC's F interval, which takes the cases as independent, only under its own key."""
    gold, judge, questions, models = [], [], [], 0
    for gold_matrix, judge_matrix in pairs:
        g, j = _case_means(gold_matrix), _case_means(judge_matrix)
        both = ~np.isnan(g) & ~np.isnan(j)
        gold += g[both].tolist()
        judge += j[both].tolist()
        questions += np.flatnonzero(both).tolist()
        models += bool(both.any())
    boot = score_agreement_bootstrap(
        first=gold, second=judge, clusters=questions, settings=bootstrap
    )
    limits = bland_altman(first=gold, second=judge).as_dict()
    for key in ("mean_difference", "lower_limit", "upper_limit"):
        limits[f"{key}_ci95"] = _question_interval(getattr(boot, key))
    return {
        "unit": "case (question × model)",
        "n": len(gold),
        "questions": boot.questions,
        "models": models,
        "gold": gold,
        "judge": judge,
        "icc": icc_2_1(scores=np.column_stack([gold, judge]).reshape(-1, 2)).as_dict()
        | {"ci95": _question_interval(boot.icc)},
        "bland_altman": limits,
    }


def _question_interval(interval: Interval) -> dict[str, Any]:
    return _interval_dict(interval) | {"resampled": "questions"}


def _ranks(values: list[float]) -> list[int]:
    order = sorted(range(len(values)), key=lambda i: -values[i])
    ranks = [0] * len(values)
    for rank, i in enumerate(order, start=1):
        ranks[i] = rank
    return ranks


def _rank_agreement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Kendall's τ-b between the leaderboard from gold labels and the one from the judge's."""
    scored = [r for r in rows if r["gold"] is not None and r["judge"] is not None]
    result: dict[str, Any] = {"models": len(scored), "kendall_tau": None, "p_value": None}
    if len(scored) < FEW_MODELS:
        result["warning"] = f"only {len(scored)} models: a rank correlation means little"
    if len(scored) < 2:
        return result | {"reason": f"{len(scored)} model(s) scored: a ranking needs two"}
    gold = [r["gold"] for r in scored]
    judge = [r["judge"] for r in scored]
    tau = kendall_tau_test(gold, judge)
    if np.isnan(tau.statistic):
        return result | {"reason": "every model has the same score on one side"}
    gold_rank, judge_rank = _ranks(gold), _ranks(judge)
    return result | {
        "kendall_tau": float(tau.statistic),
        "p_value": tau.p_value,
        "ranks": [
            {"model": r["model"], "gold": g, "judge": j}
            for r, g, j in zip(scored, gold_rank, judge_rank, strict=True)
        ],
    }
