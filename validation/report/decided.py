"""Which interval decided a closed study's gate, in words: plain Python on the report's
``decided_at`` (computed by ``validation.report.design``), so rendering loads no numpy."""

from typing import Any

from django.utils.translation import gettext

DESIGN, FIXED = "design_boundary", "fixed_95"


def decided_at_text(decided: dict[str, Any] | None) -> str:
    """The interval that decided, in words (the report's page and CSV)."""
    if not decided or decided.get("interval") != DESIGN:
        return gettext("the 95%% interval (no sequential design)") % {}
    design = decided["design"]
    text = gettext(
        "design boundary %(critical).3f at look %(look)d of %(planned)d, O'Brien–Fleming "
        "spending (bootstrap intervals at %(level).1f%%)"
    ) % {
        "critical": decided["critical"],
        "look": design["look"],
        "planned": design["planned_looks"],
        "level": decided["level"] * 100,
    }
    if design["stopped_early"]:
        text += "; " + gettext(
            "closed at %(cases)d of %(planned)d planned cases, before the planned size"
        ) % {"cases": design["complete_cases"], "planned": design["planned_cases"]}
    return text
