"""What a pairwise study's report shows in HTML (the admin's page and the one-file download):
its figures flattened for ``validation/_figure.html``, in display order."""

from typing import Any

from django.utils.translation import gettext as _

from validation.report.html import PROVENANCE, report_head


def figure_flat(estimate: dict[str, Any] | None) -> dict[str, Any]:
    """An estimate (``Estimate.as_dict``) as the figure template reads it."""
    estimate = estimate or {"value": None}
    interval = estimate.get("ci95") or estimate.get("interval") or {}
    return {
        "value": estimate.get("value"),
        "n": estimate.get("n"),
        "reason": estimate.get("reason"),
        "low": interval.get("low"),
        "high": interval.get("high"),
        "interval_reason": interval.get("reason"),
    }


def _two_ways(section: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "label": label,
            "n": section[key]["n"],
            "agreement": figure_flat(section[key]["agreement"]),
            "kappa": figure_flat(section[key]["kappa"]),
        }
        for key, label in (("with_ties", _("with ties")), ("without_ties", _("without ties")))
    ]


def _ranking(board: dict[str, Any]) -> dict[str, Any]:
    if not board.get("models"):
        return {"rows": [], "reason": board.get("reason")}
    model = board["bradley_terry"]
    return {
        "rows": [
            {
                "model": name,
                "strength": figure_flat(
                    {"value": model["strength"][name], "ci95": model["ci95"].get(name)}
                ),
            }
            for name in board["models"]
        ],
        "reason": None,
    }


def pairwise_report_context(report: dict[str, Any]) -> dict[str, Any]:
    experts = report["experts"]
    return {
        **report_head(report, body="validation/_pairwise_report_body.html"),
        "provenance": [
            (str(PROVENANCE.get(kind, kind)), n)
            for kind, n in report["counts"]["provenance"].items()
        ],
        "baseline": _two_ways(experts["human_baseline"]),
        "experts_ranking": _ranking(experts["ranking"]),
        "judges": [
            {
                "name": judge["judge"],
                "run": judge["run"],
                "pairs_judged": judge["pairs_judged"],
                "dropped_for_ties": judge["vs_gold"]["dropped_for_ties"],
                "vs_gold": _two_ways(judge["vs_gold"]),
                "consistent": figure_flat(judge["position"]["consistent"]),
                "first_shown_wins": figure_flat(judge["position"]["first_shown_wins"]),
                "length": [
                    (_("judge"), figure_flat(judge["length_bias"]["slope"].get("judge"))),
                    (_("experts"), figure_flat(judge["length_bias"]["slope"].get("experts"))),
                    (
                        _("judge − experts"),
                        figure_flat(judge["length_bias"]["slope"].get("difference")),
                    ),
                ],
                "ranking": _ranking(judge["ranking"]),
                "tau": judge["ranking_tau"],
            }
            for judge in report["judges"]
        ],
        "preference": report["rubric_preference"],
        "preference_share": figure_flat(report["rubric_preference"]["share"]),
    }
