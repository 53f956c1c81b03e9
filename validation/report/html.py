"""The study report as HTML: one self-contained, printable file, or the body of the admin page.

Tables come from a Django template (autoescaped); charts are inline SVG built by
``validation.report.charts``, which escapes every label itself.
"""

from typing import Any

from django.template.loader import render_to_string
from django.utils.dateparse import parse_datetime
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from benchmark.taxonomy import BY_CODE, CATEGORY_NAMES, ability_name, category_name
from config.page_safety import bidi_shown
from validation.closing import DROP_REASONS
from validation.gate import STATUS_WORDS
from validation.report.charts import (
    Bar,
    bar_from,
    bland_altman_chart,
    confusion_chart,
    interval_chart,
    score_chart,
)
from validation.report.decided import decided_at_text
from validation.report.latent_class_rows import latent_class_view

# Lazy: the labels are read in the language of the request that renders the report.
RELIABILITY = (
    ("percent_agreement", gettext_lazy("percent agreement")),
    ("krippendorff_alpha", gettext_lazy("Krippendorff's α (nominal)")),
    ("fleiss_kappa", gettext_lazy("Fleiss' κ")),
    ("gwet_ac1", gettext_lazy("Gwet's AC1")),
)
GATE_FIGURES = (
    ("agreement", gettext_lazy("agreement")),
    ("cohen_kappa", gettext_lazy("Cohen's κ")),
    ("scott_pi", gettext_lazy("Scott's π")),
    ("gwet_ac1", gettext_lazy("Gwet's AC1")),
    ("pabak", "PABAK"),
    ("balanced_f1", gettext_lazy("balanced F1")),
    ("recall_hit", gettext_lazy("recall on met")),
    ("recall_miss", gettext_lazy("recall on not met")),
    ("precision_hit", gettext_lazy("precision on met")),
)
BREAKDOWN_TITLES = {
    "ability": gettext_lazy("ability"),
    "category": gettext_lazy("category"),
    "difficulty": gettext_lazy("difficulty"),
    "model": gettext_lazy("model"),
    "sign": gettext_lazy("sign of the points"),
}
STUDY_STATUS = {
    "draft": gettext_lazy("draft"),
    "open": gettext_lazy("open"),
    "closed": gettext_lazy("closed"),
}
UNIT_STATES = {
    "pending": gettext_lazy("pending"),
    "gold": gettext_lazy("gold"),
    "incomplete": gettext_lazy("incomplete"),
    "awaiting": gettext_lazy("awaiting adjudication"),
    "adjudicated": gettext_lazy("adjudicated"),
    "dropped": gettext_lazy("dropped"),
}
# The outcome words are the gate's own (one vocabulary for report, badge, CLI and dashboard).
GATE_STATUS = STATUS_WORDS
GATE_CONDITIONS = {
    "agreement": gettext_lazy("agreement with the gold"),
    "noninferiority": gettext_lazy("non-inferiority to the experts (judge − experts, macro-F1)"),
    "catastrophic_recall": gettext_lazy("recall on catastrophic hits"),
    "score_bias": gettext_lazy("score bias (judge − gold, points)"),
}


def gate_conditions_view(conditions) -> list[dict[str, Any]]:
    """Each gate condition with its translated name, status and the rule it was held to."""
    rows = []
    for c in conditions:
        threshold = c["threshold"]
        rule = (
            _("lower bound ≥ %(t)s") % {"t": f"{threshold:g}"}
            if c["direction"] == "at_least"
            else _("interval within ±%(t)s") % {"t": f"{threshold:g}"}
        )
        if c.get("adjusted"):  # a score bias among several models (validation.gate)
            rule += "; " + _(
                "failing it: Holm's step-down across %(m)s models, here on the %(level)s interval"
            ) % {"m": c["adjusted"]["family"], "level": f"{c['adjusted']['level']:.2%}"}
        rows.append(
            {
                **c,
                "label": str(GATE_CONDITIONS.get(c["name"], c["name"])),
                "status_label": str(GATE_STATUS.get(c["status"], c["status"])),
                "rule": rule,
            }
        )
    return rows


PROVENANCE = {"3/3": "3/3", "2/1": "2/1", "adjudicated": gettext_lazy("adjudicated")}
GROUPS = {
    "normal": gettext_lazy("normal"),
    "hard": gettext_lazy("hard"),
    "positive": gettext_lazy("positive points"),
    "negative": gettext_lazy("negative points"),
    "catastrophic": gettext_lazy("catastrophic criterion"),
}


def _group_label(kind: str, name: str) -> str:
    if kind == "ability" and name in BY_CODE:
        return ability_name(name, language=get_language())
    if kind == "category" and name in CATEGORY_NAMES:
        return category_name(name, language=get_language())
    if kind in ("difficulty", "sign") and name in GROUPS:
        return str(GROUPS[name])
    return name


def _baseline_rows(judge: dict[str, Any], experts: dict[str, Any]) -> list[dict[str, Any]]:
    """The human baseline beside the judge on the same (item, r) pairs: pooled, then each r."""
    rows = [{"label": _("pooled"), "expert": experts["pooled"], "judge": judge["pooled"]}]
    rows += [
        {"label": name, "expert": figures, "judge": judge["raters"].get(name), "rater": True}
        for name, figures in experts["raters"].items()
    ]
    return rows


BY_PROVENANCE = (
    ("unanimous", gettext_lazy("unanimous (3/3)")),
    ("split", gettext_lazy("split (2/1)")),
    ("adjudicated", gettext_lazy("adjudicated")),
)


def _provenance_rows(section: dict[str, Any]) -> list[dict[str, Any]]:
    """Agreement with the gold per provenance, each as a figure the templates show."""
    rows = []
    for key, label in BY_PROVENANCE:
        group = section.get(key) or {}
        ci = group.get("ci95") or {}
        reason = group.get("reason") or section.get("reasons", {}).get(key)
        rows.append(
            {
                "key": key,
                "label": str(label),
                "n": group.get("n"),
                "method": ci.get("method"),
                "figure": {
                    "value": group.get("agreement"),
                    "low": ci.get("low"),
                    "high": ci.get("high"),
                    "reason": reason,
                },
            }
        )
    return rows


def _ability_tests(gate: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**a, "label": _group_label("ability", a["group"])} for a in gate["abilities"]]


def _judge_view(
    judge: dict[str, Any], threshold: float, experts_vs_others: dict[str, Any]
) -> dict[str, Any]:
    name = judge["judge"]
    experts = judge["vs_experts"]
    placed = [
        Bar(_("expert %(expert)s vs others") % {"expert": expert}, value, None, None)
        for expert, value in sorted(
            experts["expert_balanced_f1"].items(), key=lambda kv: -(kv[1] or 0)
        )
    ]
    placed.insert(
        0,
        bar_from(
            _("judge %(judge)s vs each expert") % {"judge": name},
            experts["balanced_f1"],
            highlight=True,
        ),
    )
    breakdowns = [
        {
            "kind": kind,
            "title": str(BREAKDOWN_TITLES.get(kind, kind)),
            "rows": [
                {"label": _group_label(kind, group), **section} for group, section in groups.items()
            ],
        }
        for kind, groups in judge["breakdowns"].items()
    ]
    ability_bars = [
        bar_from(_group_label("ability", group), section["agreement"])
        for group, section in judge["breakdowns"].get("ability", {}).items()
    ]
    gate = judge["gate"]
    ability_tests = _ability_tests(gate)
    return {
        **judge,
        "decision_label": str(GATE_STATUS[gate["decision"]]),
        "conditions": gate_conditions_view(gate["conditions"]),
        "decided_at_text": decided_at_text(gate.get("decided_at")),
        "ability_tests": ability_tests,
        "flagged": [a["label"] for a in ability_tests if a["flagged"]],
        "baseline": _baseline_rows(judge["vs_others"], experts_vs_others),
        "by_provenance": _provenance_rows(judge["vs_gold"]["by_provenance"]),
        "chart_bland_altman": mark_safe(
            bland_altman_chart(
                title=_("Bland–Altman: case scores of judge %(judge)s against the gold")
                % {"judge": name},
                cases=judge["score_effect"]["cases"],
            )
        ),
        "figures": [(str(label), judge["vs_gold"][key]) for key, label in GATE_FIGURES],
        "breakdown_tables": breakdowns,
        "chart_ability": mark_safe(
            interval_chart(
                title=_("Agreement with the gold by ability — judge %(judge)s") % {"judge": name},
                bars=ability_bars,
                # xgettext:no-python-format
                axis=_("agreement with the golden standard (95% interval)"),
                threshold=threshold,
            )
        ),
        "chart_confusion": mark_safe(
            confusion_chart(
                title=_("Confusion matrix — judge %(judge)s against the gold") % {"judge": name},
                confusion=judge["vs_gold"]["confusion"],
            )
        ),
        "chart_experts": mark_safe(
            interval_chart(
                title=_("Balanced F1 against each expert — judge %(judge)s among the experts")
                % {"judge": name},
                bars=placed,
                axis=_("balanced F1 against the other labellers, one at a time"),
            )
        ),
        "chart_scores": mark_safe(
            score_chart(
                title=_("Scores from gold labels and from judge %(judge)s") % {"judge": name},
                models=judge["score_effect"]["models"],
            )
        ),
    }


def report_context(report: dict[str, Any]) -> dict[str, Any]:
    """What the templates show: the report, charts as inline SVG, figures in display order
    (a pairwise study's: ``validation.report.pairwise_html``)."""
    if report.get("question_type") == "pairwise":
        from validation.report.pairwise_html import pairwise_report_context

        return pairwise_report_context(report)
    threshold = report["study"]["gate_threshold"]
    experts = report["experts"]
    reliability = [(str(label), experts[key]) for key, label in RELIABILITY]
    counts = report["counts"]
    return {
        **report_head(report, body="validation/_report_body.html"),
        "units_by_state": [
            (str(UNIT_STATES.get(state, state)), n) for state, n in counts["units_by_state"].items()
        ],
        "gold_provenance": [
            (str(PROVENANCE.get(kind, kind)), n) for kind, n in counts["gold_provenance"].items()
        ],
        "reliability": reliability,
        "chart_reliability": mark_safe(
            interval_chart(
                title=_("Expert reliability (experts among themselves)"),
                bars=[bar_from(label, fig) for label, fig in reliability],
                # xgettext:no-python-format
                axis=_("coefficient (95% interval); chance-corrected figures can be negative"),
                lo=-0.2,
            )
        ),
        "chart_comparison": mark_safe(
            interval_chart(
                title=_("Judges side by side: agreement with the gold"),
                bars=[bar_from(row["judge"], row["agreement"]) for row in report["comparison"]],
                # xgettext:no-python-format
                axis=_("agreement with the golden standard (95% interval)"),
                threshold=threshold,
            )
        ),
        "judges": [
            _judge_view(j, threshold, experts["vs_others"])
            | {"achieved_half_width": report["planning"]["judges"].get(j["judge"])}
            for j in report["judges"]
        ],
        "rater_quality": report.get("rater_quality", []),
        "dropped": _dropped_view(report.get("dropped")),
        "latent_class": latent_class_view(report.get("latent_class")),
    }


def report_head(report: dict[str, Any], *, body: str) -> dict[str, Any]:
    """What every study report's page starts with: the report, its body's template, the
    close time and the status in words."""
    status = report["study"]["status"]
    return {
        "report": report,
        "body_template": body,
        # The report keeps ISO time for machines; people read it in the platform's time zone.
        "closed_at": parse_datetime(report["study"].get("closed_at") or ""),
        "status_label": str(STUDY_STATUS.get(status, status)),
    }


def _dropped_view(section: dict[str, Any] | None) -> dict[str, Any] | None:
    if not section or not section["units"]:
        return None
    return {
        **section,
        "reasons": [(str(DROP_REASONS.get(r, r)), n) for r, n in section["by_reason"].items()],
        "rows": [
            {**d, "reason_label": str(DROP_REASONS.get(d["reason"], d["reason"]))}
            for d in section["list"]
        ],
    }


def report_html(report: dict[str, Any]) -> str:
    """The self-contained document (inline CSS and SVG, no script, no external request)."""
    return bidi_shown(render_to_string("validation/study_report.html", report_context(report)))
