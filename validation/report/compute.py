"""The study report as JSON-ready data, from ``StudyData`` and the statistics package (pure).

Every interval is the case-clustered bootstrap with one seed for the whole report: the case is
what the study sampled, and criteria of one case (and the models' answers to it) move together.
"""

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from benchmark.taxonomy import ABILITIES, CATASTROPHIC, CATEGORIES, CATEGORY_OF
from validation.gate import GateConfig, GateDecision, gate_decide
from validation.report.adjudication import adjudication_compute
from validation.report.data import CATEGORIES as LABELS
from validation.report.data import HIT, MISS, JudgeLabels, StudyData
from validation.report.design import decided_at, study_close_look
from validation.report.dropped import dropped_compute
from validation.report.latent_class import latent_class_compute
from validation.report.notes import notes_compute
from validation.report.rater_quality import rater_quality_compute
from validation.report.rubric_changes import rubric_changes_compute, rubric_changes_for_judge
from validation.report.score_effect import score_effect
from validation.report.stability import stability_compute
from validation.statistics import (
    MISSING,
    AgainstOthers,
    BootstrapSettings,
    Estimate,
    PairwiseAgreement,
    Ratings,
    experts_against_others,
    judge_against_others,
    judge_noninferiority,
    labeller_against_raters,
    pairwise_agreement,
    rater_reliability,
    raters_leave_one_out,
)
from validation.statistics.holm import agreement_below_holm
from validation.statistics.pairwise import two_by_two_indices
from validation.statistics.provenance import FROM_GOLD, provenance_agreement

PAIRWISE = ("agreement", "cohen_kappa", "scott_pi", "gwet_ac1", "pabak", "balanced_f1")
BREAKDOWN = ("agreement", "cohen_kappa", "gwet_ac1")


def figure(estimate: Estimate) -> dict[str, Any]:
    """One figure: value and n, its interval when there is one, the reason when undefined."""
    data: dict[str, Any] = {"value": estimate.value, "n": estimate.n}
    if estimate.interval is not None:
        interval = estimate.interval
        data |= {"low": interval.low, "high": interval.high, "method": interval.method}
        if interval.reason:
            data["interval_reason"] = interval.reason
    if estimate.reason:
        data["reason"] = estimate.reason
    return data


def _ratings(data: StudyData) -> Ratings:
    return Ratings(
        codes=data.ratings,
        categories=LABELS,
        raters=data.experts,
        items=tuple(zip(data.case.tolist(), range(data.n_items), strict=True)),
        clusters=data.case,
        cluster_keys=data.case_keys,
    )


def _pairwise(data: StudyData, reference: np.ndarray, predicted: np.ndarray, boot):
    return pairwise_agreement(
        reference=reference,
        predicted=predicted,
        categories=LABELS,
        clusters=data.case,
        bootstrap=boot,
    )


def _with_recall(result: PairwiseAgreement, keys: tuple[str, ...]) -> dict[str, Any]:
    section: dict[str, Any] = {"n": result.n}
    section |= {key: figure(getattr(result, key)) for key in keys}
    section["recall_hit"] = figure(result.per_class["hit"].recall)
    section["recall_miss"] = figure(result.per_class["miss"].recall)
    return section


def _against_gold(result: PairwiseAgreement) -> dict[str, Any]:
    section = _with_recall(result, PAIRWISE)
    section["precision_hit"] = figure(result.per_class["hit"].precision)
    section["confusion"] = result.confusion_dict() | {"rows": "gold", "columns": "judge"}
    section["prevalence_hit"] = {
        "gold": result.per_class["hit"].reference_share,
        "judge": result.per_class["hit"].predicted_share,
    }
    # As in `heartbench agreement`: b, gold met and judge not met; c, the other way round.
    section |= two_by_two_indices(confusion=result.confusion) or {
        "prevalence_index": None,
        "bias_index": None,
        "mcnemar": None,
    }
    return section


def _by_provenance(data: StudyData, codes: np.ndarray, boot) -> dict[str, Any]:
    """Agreement with the gold per provenance (3/3, 2/1, adjudicated), as the CLI keys it."""
    return provenance_agreement(
        reference=data.gold,
        predicted=codes,
        provenance=np.array([FROM_GOLD.get(p, "") for p in data.provenance], dtype=object),
        clusters=data.case,
        n_clusters=data.n_cases,
        categories=LABELS,
        bootstrap=boot,
    )


def _groups(data: StudyData) -> dict[str, dict[str, np.ndarray]]:
    """Item masks of every breakdown, in display order; empty groups are left out."""
    ability = data.ability
    category = np.array([CATEGORY_OF.get(a, "") for a in ability], dtype=object)
    points = data.points
    groups = {
        "ability": {a.code: ability == a.code for a in ABILITIES if a.code != CATASTROPHIC},
        "category": {c: category == c for c in CATEGORIES},
        "difficulty": {"normal": ~data.hard, "hard": data.hard},
        "model": {name: data.model == i for i, name in enumerate(data.models)},
        "sign": {
            "positive": (points > 0) & (ability != CATASTROPHIC),
            "negative": (points < 0) & (ability != CATASTROPHIC),
            "catastrophic": ability == CATASTROPHIC,
        },
    }
    return {
        kind: {name: mask for name, mask in masks.items() if mask.any()}
        for kind, masks in groups.items()
    }


def _catastrophic(data: StudyData, judge: np.ndarray, boot) -> dict[str, Any]:
    """Recall on catastrophic hits, alone: one missed catastrophe zeroes a whole case."""
    mask = (data.ability == CATASTROPHIC) & (judge != MISSING)
    gold = np.where(mask, data.gold, MISSING)
    result = _pairwise(data, gold, judge, boot)
    return {
        "criteria": int(((data.ability == CATASTROPHIC) & (data.gold != MISSING)).sum()),
        "gold_hits": int((gold == HIT).sum()),
        "judge_hits": int(((judge == HIT) & mask & (data.gold != MISSING)).sum()),
        "missed": int(((gold == HIT) & (judge == MISS)).sum()),
        "false_alarms": int(((gold == MISS) & (judge == HIT)).sum()),
        "recall_hit": figure(result.per_class["hit"].recall),
        "precision_hit": figure(result.per_class["hit"].precision),
    }


def _baseline_figures(result: PairwiseAgreement) -> dict[str, Any]:
    return {
        "n": result.n,
        "agreement": figure(result.agreement),
        "kappa": figure(result.cohen_kappa),
        "macro_f1": figure(result.balanced_f1),
    }


def _against_others(result: AgainstOthers) -> dict[str, Any]:
    """The human baseline's figures (point estimates), pooled and per reference expert."""
    return {
        "pooled": _baseline_figures(result.pooled),
        "raters": {name: _baseline_figures(r) for name, r in result.by_rater.items()},
    }


def _experts(data: StudyData, ratings: Ratings, boot) -> dict[str, Any]:
    reliability = rater_reliability(
        counts=ratings.counts(), categories=LABELS, clusters=data.case, bootstrap=boot
    )
    leave_one_out = raters_leave_one_out(ratings=ratings, bootstrap=boot)
    return {
        "n_experts": len(data.experts),
        "n_items": reliability.n_items,
        "percent_agreement": figure(reliability.percent_agreement),
        "krippendorff_alpha": figure(reliability.krippendorff_alpha),
        "fleiss_kappa": figure(reliability.fleiss_kappa),
        "gwet_ac1": figure(reliability.gwet_ac1),
        "leave_one_out": {
            expert: {
                "n_pairs": result.n,
                "agreement": figure(result.agreement),
                "cohen_kappa": figure(result.cohen_kappa),
                "balanced_f1": figure(result.balanced_f1),
            }
            for expert, result in leave_one_out.items()
        },
        "vs_others": _against_others(experts_against_others(ratings=ratings)),
    }


def _judge(
    data: StudyData, ratings: Ratings, judge: JudgeLabels, experts: dict, boot
) -> dict[str, Any]:
    codes = judge.codes
    figures, gate, decided = judge_gate_final(
        data=data, judge=judge, bootstrap=boot, ratings=ratings
    )
    against_gold = figures.against_gold
    against_raters = labeller_against_raters(ratings=ratings, predicted=codes, bootstrap=boot)
    expert_f1 = {
        name: section["balanced_f1"]["value"] for name, section in experts["leave_one_out"].items()
    }
    return {
        "judge": judge.name,
        "runs": list(judge.runs),
        "items_judged": int((codes != MISSING).sum()),
        "errors": judge.errors,
        "missing": int(((codes == MISSING) & (data.gold != MISSING)).sum()) - judge.errors,
        "vs_gold": _against_gold(against_gold)
        | {"by_provenance": _by_provenance(data, codes, boot)},
        "vs_experts": {
            "n_pairs": against_raters.pooled.n,
            "balanced_f1": figure(against_raters.pooled.balanced_f1),
            "agreement": figure(against_raters.pooled.agreement),
            "by_expert": {
                name: figure(result.balanced_f1) for name, result in against_raters.by_rater.items()
            },
            "expert_balanced_f1": expert_f1,
        },
        "vs_others": _against_others(judge_against_others(ratings=ratings, judge=codes)),
        "noninferiority": figures.noninferiority,
        "gate": gate.as_dict()
        | {"agreement": figure(against_gold.agreement), "decided_at": decided},
        "breakdowns": {
            kind: {
                name: _with_recall(
                    _pairwise(data, np.where(mask, data.gold, MISSING), codes, boot), BREAKDOWN
                )
                for name, mask in masks.items()
            }
            for kind, masks in _groups(data).items()
        },
        "catastrophic": figures.catastrophic,
        "score_effect": figures.score_effect,
    }


@dataclass(frozen=True)
class GateFigures:
    """What the gate is decided on; the report shows the same figures in its sections."""

    against_gold: PairwiseAgreement
    noninferiority: dict[str, Any]
    catastrophic: dict[str, Any]
    score_effect: dict[str, Any]


def _ability_flags(data: StudyData, codes: np.ndarray, threshold: float) -> list[dict]:
    both = (data.gold != MISSING) & (codes != MISSING)
    groups = {
        a.code: (data.gold[mask] == codes[mask], data.case[mask])
        for a in ABILITIES
        if a.code != CATASTROPHIC and (mask := both & (data.ability == a.code)).any()
    }
    return [t.as_dict() for t in agreement_below_holm(groups=groups, threshold=threshold)]


def judge_gate_compute(
    *,
    data: StudyData,
    judge: JudgeLabels,
    bootstrap: BootstrapSettings,
    ratings: Ratings | None = None,
) -> tuple[GateFigures, GateDecision]:
    """The figures of one judge the gate needs, and the gate decided on them under the study's
    configuration (``data.study["gate"]``): the report and the leaderboard badge both call
    this, so they decide on the very same figures."""
    config = GateConfig.from_mapping(data.study.get("gate") or {})
    codes = judge.codes
    ratings = ratings or _ratings(data)
    figures = GateFigures(
        against_gold=_pairwise(data, data.gold, codes, bootstrap),
        noninferiority=judge_noninferiority(
            ratings=ratings,
            judge=codes,
            bootstrap=bootstrap,
            delta=-config.noninferiority_margin,
        ).as_dict(),
        catastrophic=_catastrophic(data, codes, bootstrap),
        score_effect=score_effect(data=data, judge=codes, bootstrap=bootstrap),
    )
    gate = gate_decide(
        config=config,
        agreement=figure(figures.against_gold.agreement),
        noninferiority=figures.noninferiority,
        catastrophic=figures.catastrophic,
        score_bias=figures.score_effect["models"],
        abilities=_ability_flags(data, codes, config.agreement_min),
    )
    return figures, gate


def judge_gate_final(
    *,
    data: StudyData,
    judge: JudgeLabels,
    bootstrap: BootstrapSettings,
    ratings: Ratings | None = None,
) -> tuple[GateFigures, GateDecision, dict[str, Any]]:
    """The study's own decision of one judge's gate (the report, the badge and the command
    line's leaderboard ask this): the figures at 95 %, and the gate decided at 95 % or, for a
    closed sequentially monitored study, at its design's final boundary on the same resamples
    (``validation.report.design``); with ``decided_at``, which interval decided."""
    figures, gate = judge_gate_compute(data=data, judge=judge, bootstrap=bootstrap, ratings=ratings)
    look = study_close_look(data)
    if look is None:
        return figures, gate, decided_at(None, level=bootstrap.level)
    _, at_boundary = judge_gate_compute(
        data=data, judge=judge, bootstrap=replace(bootstrap, level=look.level), ratings=ratings
    )
    return figures, at_boundary, decided_at(look, level=look.level, fixed=gate.decision)


def _counts(data: StudyData) -> dict[str, Any]:
    states = data.unit_states
    rated = (data.ratings != MISSING).sum(axis=1)
    per_unit = np.zeros(int(data.unit.max()) + 1 if data.n_items else 0, dtype=np.int64)
    np.maximum.at(per_unit, data.unit, rated)
    hits = (data.ratings == HIT).sum(axis=1)
    no_gold = data.gold == MISSING
    provenance = {p: int((data.provenance == p).sum()) for p in ("3/3", "2/1", "adjudicated")}
    return {
        "cases": data.n_cases,
        "models": len(data.models),
        "units": sum(states.values()),
        "units_by_state": {
            s: states.get(s, 0)
            for s in ("pending", "gold", "incomplete", "awaiting", "adjudicated")
        }
        | {"dropped": len(data.dropped)},
        # Left out of the sample at the close: in none of the figures (see "dropped").
        "units_dropped": len(data.dropped),
        "units_complete": int((per_unit >= 3).sum()),
        "units_incomplete": int((per_unit < 3).sum()),
        "criteria": int(np.unique(data.criterion).size),
        "items": data.n_items,
        "items_with_gold": int((~no_gold).sum()),
        "gold_provenance": provenance,
        # Items without gold whose available ratings split evenly (a 1/1 of an unfinished unit).
        "ties": int((no_gold & (rated > 0) & (2 * hits == rated)).sum()),
    }


def report_compute(*, data: StudyData, bootstrap: BootstrapSettings) -> dict[str, Any]:
    """The whole study report: counts, experts, each judge, and the judges side by side."""
    data.check()
    ratings = _ratings(data)
    experts = _experts(data, ratings, bootstrap)
    judges = [_judge(data, ratings, judge, experts, bootstrap) for judge in data.judges]
    rubric_changes = rubric_changes_compute(data)
    for judge in judges:
        # How many of the items behind this judge's figures met a changed criterion.
        judge["rubric_changes"] = rubric_changes_for_judge(rubric_changes, judge["judge"])
    return {
        "study": data.study,
        "bootstrap": {
            "resamples": bootstrap.resamples,
            "seed": bootstrap.seed,
            "level": bootstrap.level,
            "clusters": data.n_cases,
            "resampled": "cases",
        },
        "counts": _counts(data),
        "experts": experts,
        "judges": judges,
        "comparison": _comparison(judges),
        "adjudication": adjudication_compute(data.adjudications, unit_states=data.unit_states),
        "dropped": dropped_compute(data.dropped),
        "rater_notes": notes_compute(data.notes),
        "rater_quality": rater_quality_compute(data.raters),
        "rubric_changes": rubric_changes,
        "planning": planning_compute(study=data.study, judges=judges),
        "stability": stability_compute(data=data, bootstrap=bootstrap, figure=figure),
        "latent_class": latent_class_compute(
            data=data,
            ratings=ratings,
            bootstrap=bootstrap,
            agreement={j["judge"]: j["vs_gold"]["agreement"]["value"] for j in judges},
        ),
    }


def planning_compute(*, study: dict[str, Any], judges: list[dict[str, Any]]) -> dict[str, Any]:
    """Planned against achieved: the half-width the planner aimed at (None when the fraction
    was chosen by hand) and each judge's achieved half-width of agreement with the gold."""
    plan = study.get("plan") or {}

    def achieved(agreement: dict[str, Any]) -> float | None:
        if agreement.get("low") is None or agreement.get("high") is None:
            return None
        return (agreement["high"] - agreement["low"]) / 2

    return {
        "planned_half_width": plan.get("half_width"),
        "expected_agreement": plan.get("expected_agreement"),
        "planned_cases": plan.get("cases"),
        "design_effect": plan.get("design_effect"),
        "icc_source": plan.get("icc_source"),
        "judges": {j["judge"]: achieved(j["vs_gold"]["agreement"]) for j in judges},
    }


def _comparison(judges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Judges side by side, closest to the experts first (balanced F1 against each expert)."""
    rows = [
        {
            "judge": j["judge"],
            "agreement": j["vs_gold"]["agreement"],
            "cohen_kappa": j["vs_gold"]["cohen_kappa"],
            "gwet_ac1": j["vs_gold"]["gwet_ac1"],
            "balanced_f1_vs_experts": j["vs_experts"]["balanced_f1"],
            "recall_catastrophic": j["catastrophic"]["recall_hit"],
            "kendall_tau": j["score_effect"]["rank_agreement"]["kendall_tau"],
            # The few-models warning travels with τ wherever τ is shown.
            "kendall_tau_models": j["score_effect"]["rank_agreement"]["models"],
            "kendall_tau_warning": j["score_effect"]["rank_agreement"].get("warning"),
            "decision": j["gate"]["decision"],
        }
        for j in judges
    ]

    def key(row: dict[str, Any]) -> tuple:
        f1 = row["balanced_f1_vs_experts"]["value"]
        agreement = row["agreement"]["value"]
        return (f1 is None, -(f1 or 0), -(agreement or 0), row["judge"])

    return sorted(rows, key=key)
