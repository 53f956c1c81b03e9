"""A pairwise study's report (issue 43 item 4): the experts' majority against each judge's
choices over both orders, the human baseline, the judge's position consistency and length
bias, Bradley–Terry from the experts and from each judge with Kendall's τ between them, and
whether the model with the higher rubric case score is the one the experts prefer.

Every figure comes from ``validation.statistics.preference_agreement`` and
``validation.pairwise_rank``; this module only assembles them from the study's inputs.
"""

from typing import Any

from benchmark.llm.pairwise_reply import STORED, SWAPPED, pair_outcome
from validation.pairwise_rank import rank_summary
from validation.report.pairwise_selectors import PairwiseStudyInputs
from validation.statistics import BootstrapSettings
from validation.statistics.preference import Comparison, PreferenceError
from validation.statistics.preference_agreement import (
    LengthComparison,
    RatedComparison,
    choice_agreement,
    human_baseline,
    length_bias,
    position_consistency,
    ranking_tau,
    rubric_preference,
)

FLIP = {"a": "b", "b": "a", "tie": "tie"}


def pairwise_report_compute(
    *, inputs: PairwiseStudyInputs, bootstrap: BootstrapSettings
) -> dict[str, Any]:
    pairs = inputs.pairs

    def comparison(pair_id: int, winner: str) -> Comparison:
        pair = pairs[pair_id]
        return Comparison(pair.case, pair.model_a, pair.model_b, winner)

    def lengths(choices: dict[int, str]) -> list[LengthComparison]:
        return [
            LengthComparison(*comparison(pk, w), pairs[pk].length_a, pairs[pk].length_b)
            for pk, w in choices.items()
        ]

    gold = {pk: winner for pk, (winner, _) in inputs.gold.items()}
    experts_rank = _ranked([comparison(pk, w) for pk, w in gold.items()], bootstrap)
    ratings = [
        RatedComparison(*comparison(pk, winner)[:3], rater, winner)
        for pk, rater, winner in inputs.choices
    ]
    judges = []
    for judge in inputs.judges:
        shown = [_as_shown(comparison(pk, choice), order) for pk, order, choice in judge.verdicts]
        combined = _combined(judge.verdicts)
        judge_rank = _ranked([comparison(pk, w) for pk, w in combined.items()], bootstrap)
        judges.append(
            {
                "judge": judge.judge,
                "run": {"id": judge.run, "status": judge.status},
                "pairs_judged": len(combined),
                "vs_gold": choice_agreement(
                    reference=[comparison(pk, w) for pk, w in gold.items()],
                    labeller=[comparison(pk, w) for pk, w in combined.items()],
                    bootstrap=bootstrap,
                ).as_dict(),
                "position": position_consistency(shown, bootstrap=bootstrap).as_dict(),
                "length_bias": length_bias(
                    {"judge": lengths(combined), "experts": lengths(gold)}, bootstrap=bootstrap
                ).as_dict(),
                "ranking": judge_rank,
                "ranking_tau": _tau(experts_rank, judge_rank),
            }
        )
    return {
        "study": inputs.study,
        "question_type": "pairwise",
        "bootstrap": {
            "resamples": bootstrap.resamples,
            "seed": bootstrap.seed,
            "level": bootstrap.level,
            "resampled": "cases",
        },
        "counts": {
            "pairs": len(pairs),
            "cases": len({p.case for p in pairs.values()}),
            "choices": len(inputs.choices),
            "gold": len(gold),
            "provenance": _provenance(inputs.gold),
            "unit_states": inputs.unit_states,
        },
        "experts": {
            "human_baseline": human_baseline(ratings, bootstrap=bootstrap).as_dict(),
            "ranking": experts_rank,
        },
        "judges": judges,
        "rubric_preference": {
            "rubric_judge": inputs.rubric_judge,
            **rubric_preference(
                [comparison(pk, w) for pk, w in gold.items()],
                case_scores=inputs.case_scores,
                bootstrap=bootstrap,
            ).as_dict(),
        },
        "rules": {
            "gold": "the majority of three blind choices; a three-way split (or a pair the "
            "study closed on before its third choice) is decided by a senior",
            "judge": "each pair judged in both orders; a choice that flips with the order is "
            "a tie; a pair with an order missing or in error is left out",
        },
    }


def _as_shown(stored: Comparison, order: str) -> Comparison:
    """A verdict as the judge saw it: its order's first response as ``model_a``."""
    if order == STORED:
        return stored
    return Comparison(stored.case, stored.model_b, stored.model_a, FLIP[stored.winner])


def _combined(verdicts: list[tuple[int, str, str]]) -> dict[int, str]:
    """Pair → the judge's choice over both orders (``pair_outcome``), for pairs with both."""
    orders: dict[int, dict[str, str]] = {}
    for pk, order, choice in verdicts:
        orders.setdefault(pk, {})[order] = choice
    return {
        pk: pair_outcome(stored=got[STORED], swapped=got[SWAPPED])[0]
        for pk, got in orders.items()
        if len(got) == 2
    }


def _ranked(comparisons: list[Comparison], bootstrap: BootstrapSettings) -> dict[str, Any]:
    try:
        return rank_summary(comparisons, bootstrap=bootstrap)
    except PreferenceError as exc:
        return {"models": [], "reason": str(exc)}


def _tau(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any] | None:
    if not first.get("models") or not second.get("models"):
        return None
    return ranking_tau(first["bradley_terry"]["strength"], second["bradley_terry"]["strength"])


def _provenance(gold: dict[int, tuple[str, str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, provenance in gold.values():
        counts[provenance] = counts.get(provenance, 0) + 1
    return counts
