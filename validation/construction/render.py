"""The construction report as JSON, or as one self-contained HTML file in a chosen language."""

import json

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from config.page_safety import bidi_shown

FORMATS = ("json", "html")
STAGE_NAMES = {
    "imported": pgettext_lazy("construction funnel", "imported"),
    "rewritten": _("rewritten by an LLM"),
    "with_rubric": _("with a rubric"),
    "quality_control": _("after saturation and too-easy removal"),
    "difficulty_marked": _("difficulty marked"),
    "accepted": _("accepted by the panel"),
    "published": _("published"),
}
# Removal stages other tiers may add show under their own name.
REMOVAL_NAMES = {
    "too_easy": _("too easy"),
    "saturated": _("saturated"),
    "rejected": _("rejected by the panel"),
}


def _named(rows: list[dict]) -> list[dict]:
    return [{**row, "name": REMOVAL_NAMES.get(row["stage"], row["stage"])} for row in rows]


def construction_report_html(report: dict, *, language: str) -> str:
    with translation.override(language):
        funnel = [
            {**row, "name": STAGE_NAMES[row["stage"]], "percent": round(100 * (row["share"] or 0))}
            for row in report["funnel"]
        ]
        html = render_to_string(
            "validation/construction_report.html",
            {
                "report": report,
                "funnel": funnel,
                "removed_drafts": _named(report["removed_drafts"]),
                "removed_criteria": _named(report["removed_criteria"]),
            },
        )
    return bidi_shown(html)


def construction_report_render(report: dict, *, fmt: str, language: str = "en") -> str:
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    if fmt == "html":
        return construction_report_html(report, language=language)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}")
