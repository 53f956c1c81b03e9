"""The leaderboard page's content, built from a leaderboard dictionary (Leaderboard.as_dict())
and the judges' validation badges: the compared models, the inline SVG charts, the badges.

Aggregates only: experts see this page, so nothing here names a case, a response, a unit or a
verdict — only per-model averages and the study-level badge of a finished study.
"""

from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from benchmark.charts import PALETTE, difficulty_bars_chart, radar_compare_chart
from benchmark.models import Dataset
from benchmark.taxonomy import CATEGORIES, SCORED_CODES, ability_name, category_name
from validation.report.html import GATE_STATUS, gate_conditions_view
from validation.selectors.badge import JudgeBadge, study_latest_closed_for_judge
from validation.services.stored import judge_badge_keep

MAX_COMPARE = 5
DEFAULT_COMPARE = 3
SPLIT_LABELS = {
    "all": gettext_lazy("all cases"),
    "normal": gettext_lazy("normal cases"),
    "hard": gettext_lazy("hard cases"),
}
SCORING_LABELS = {
    "paper": gettext_lazy("paper (catastrophic rule applied)"),
    "upstream": gettext_lazy("upstream (as the released scorer)"),
}


def ability_labels() -> dict[str, str]:
    """Ability code → its name in the current language (taxonomy holds both)."""
    language = get_language()
    return {code: ability_name(code, language=language) for code in SCORED_CODES}


def category_labels() -> list[tuple[str, str]]:
    language = get_language()
    return [(c, category_name(c, language=language)) for c in CATEGORIES]


@dataclass(frozen=True)
class Comparison:
    chosen: list[str]  # models drawn on the radar, in leaderboard order
    checked: list[str]  # checkboxes shown ticked (what was asked, even when refused)
    error: str | None  # why the choice was refused


def compare_choose(*, ranked: list[str], requested: list[str], submitted: bool) -> Comparison:
    """The models to compare: at most five; more is refused, not silently cut.

    Without a choice yet the top three are drawn, so the chart is never empty on arrival.
    Names not on this leaderboard (a choice carried over from another dataset) are ignored.
    """
    asked = list(dict.fromkeys(requested))
    if len(asked) > MAX_COMPARE:
        message = ngettext(
            "Compare at most %(max)d model at a time; you picked %(count)d. Untick some and "
            "press Compare again.",
            "Compare at most %(max)d models at a time; you picked %(count)d. Untick some and "
            "press Compare again.",
            MAX_COMPARE,
        ) % {"max": MAX_COMPARE, "count": len(asked)}
        return Comparison(chosen=[], checked=asked, error=message)
    if not submitted and not asked:
        top = ranked[:DEFAULT_COMPARE]
        return Comparison(chosen=top, checked=top, error=None)
    chosen = [name for name in ranked if name in set(asked)]
    return Comparison(chosen=chosen, checked=chosen, error=None)


def badge_view(*, judge: str, badge: JudgeBadge | None, staff: bool) -> dict[str, Any]:
    """What the page shows of one judge's badge.

    While units of the closed study still wait for a senior's adjudication, its figures are
    study-level statistics about units someone has not submitted yet, so only staff see them.
    """
    if badge is None:
        return {"judge": judge, "state": "none"}
    if badge.awaiting_adjudication and not staff:
        return {"judge": judge, "state": "withheld", "awaiting": badge.awaiting_adjudication}
    return {
        "judge": judge,
        "state": "shown",
        "study": badge.study,
        "closed_at": badge.closed_at,
        "units": badge.units,
        "threshold": badge.threshold,
        "agreement": badge.agreement,
        "decision": badge.decision,
        "decision_label": str(GATE_STATUS[badge.decision]),
        "conditions": gate_conditions_view(badge.conditions),
        "awaiting": badge.awaiting_adjudication,
        "report_url": reverse("validation:study-report", args=[badge.study]) if staff else None,
    }


def charts(*, board: dict[str, Any], chosen: list[str]) -> dict[str, SafeString]:
    """The radar of the compared models and the normal/hard bars, as escaped inline SVG."""
    labels = ability_labels()
    by_name = {m["model"]: m for m in board["models"]}
    radar = radar_compare_chart(
        series=[(name, by_name[name]["abilities"]) for name in chosen],
        labels=labels,
        title=_("Ability scores of the compared models (0 at the centre, 100 at the rim)"),
        empty=_("No model is picked for comparison."),
    )
    bars = difficulty_bars_chart(
        rows=[(m["model"], m["normal"], m["hard"]) for m in board["models"]],
        names=(_("normal cases"), _("hard cases")),
        title=_("Normal against hard cases: overall score per model"),
        axis=_("overall score (0–100)"),
        empty=_("No model has been judged on this dataset yet."),
    )
    # Both builders escape every piece of text they are given (model names come from outside).
    return {"radar": mark_safe(radar), "difficulty": mark_safe(bars)}


def compared_abilities(*, board: dict[str, Any], chosen: list[str]) -> list[dict[str, Any]]:
    """The radar as a table (its text fallback): one row per ability, one column per model."""
    labels = ability_labels()
    by_name = {m["model"]: m for m in board["models"]}
    return [
        {"label": labels[code], "scores": [by_name[n]["abilities"].get(code) for n in chosen]}
        for code in SCORED_CODES
    ]


def legend(chosen: list[str]) -> list[tuple[str, str]]:
    return [(name, PALETTE[k % len(PALETTE)]) for k, name in enumerate(chosen)]


def board_notes(board: dict[str, Any]) -> dict[str, Any]:
    """What the page says under the table: the coverage threshold when a row is unranked, and
    the models only other judges judged (each with a link to that judge's board)."""
    unranked = any(m.get("rank") is None for m in board["models"])
    return {
        "unranked": unranked,
        "threshold": f"{board.get('min_coverage', 0) * 100:g}%",
        "cases": board["models"][0]["coverage"]["total"] if board["models"] else 0,
        "not_shown": board.get("not_shown") or [],
    }


def badge_get(*, dataset: Dataset, judge: str) -> JudgeBadge | None:
    """The judge's badge from the newest closed study, kept as data while its inputs hold."""
    study = study_latest_closed_for_judge(dataset=dataset, judge=judge)
    if study is None:
        return None
    return judge_badge_keep(study=study, judge=judge)


def pairwise_views(*, dataset: Dataset) -> list[dict[str, Any]]:
    """Each judged pairwise set of the dataset as its board section shows it: the models by
    Bradley–Terry strength with intervals and observed win shares, and the win-rate matrix
    (row beat column), in the ranking's order. Per-model aggregates only, as the page is."""
    # Deferred: the board's statistics load numpy.
    from benchmark.selectors.pairwise import pairwise_sets_judged
    from validation.pairwise_board import pairwise_board

    return [
        _pairwise_view(pairwise_board(pair_set=pair_set))
        for pair_set in pairwise_sets_judged(dataset=dataset)
    ]


def _pairwise_view(board: dict[str, Any]) -> dict[str, Any]:
    view = {
        "name": board["pairwise_set"],
        "judge": board["judge"],
        "judges": board["judges"],
        "pairs": board["pairs"],
        "usable": board["usable_pairs"],
        "inconsistent": board["position_inconsistent"],
        "models": board["models"],
        "reason": board.get("reason"),
    }
    if not board["models"]:
        return view
    from validation.pairwise_rank import won_share

    model, rates, compared = board["bradley_terry"], board["win_rate"], board["compared"]
    rows = []
    for rank, name in enumerate(board["models"], start=1):
        ci = model["ci95"][name]
        won, games = won_share(board, name)
        rows.append(
            {
                "rank": rank,
                "model": name,
                "strength": model["strength"][name],
                "low": ci["low"],
                "high": ci["high"],
                "won": won,
                "games": games,
            }
        )
    matrix = [
        {
            "model": a,
            "cells": [
                None if a == b else {"share": rates[a].get(b), "n": compared[a].get(b, 0)}
                for b in board["models"]
            ],
        }
        for a in board["models"]
    ]
    withheld = any(row["low"] is None for row in rows)
    return view | {
        "rows": rows,
        "matrix": matrix,
        "prior": model["prior"]["used"],
        "withheld": withheld,
    }
