"""The leaderboard as one self-contained HTML file (`heartbench leaderboard --format html`):
table with intervals, a radar chart of the 15 abilities per model, normal against hard, and the
judge's gate when a study checked it.

Rendered by the template ``benchmark/leaderboard_file.html`` with the stylesheet inlined; inline
SVG only (no script, no external request), so the file can be mailed, archived and printed.
The template escapes every piece of data text (model and judge names come from outside); the
chart builders escape their own.
"""

from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from benchmark.charts import PALETTE, normal_hard_chart, radar_chart
from benchmark.leaderboard_render import board_notes, judge_text, rubric_notes, table_rows
from benchmark.taxonomy import CATEGORIES, CATEGORY_NAMES
from config.page_safety import bidi_shown


def _gate_judges(gate: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each judge's gate line; the interval only where the study computed one."""
    judges = []
    for j in (gate or {}).get("judges", []):
        agreement = j["agreement"]
        interval = (
            (agreement["low"], agreement["high"]) if agreement.get("low") is not None else None
        )
        judges.append({**j, "interval": interval})
    return judges


def render_html(board: dict[str, Any], *, gate: dict[str, Any] | None = None) -> str:
    """The whole leaderboard document; ``gate`` is the judge's gate from a closed study."""
    radars = [
        radar_chart(model=m["model"], abilities=m["abilities"], color=PALETTE[i % len(PALETTE)])
        for i, m in enumerate(board["models"])
    ]
    context = {
        "board": board,
        "title": f"HeartBench leaderboard: {board['dataset']} v{board['dataset_version']}",
        "judge": judge_text(board),
        "notes": board_notes(board),
        "categories": [CATEGORY_NAMES[c] for c in CATEGORIES],
        "rows": table_rows(board),
        "gate": gate,
        "gate_judges": _gate_judges(gate),
        "rubric_notes": rubric_notes(board),
        # The builders escape every piece of text they are given.
        "normal_hard": mark_safe(normal_hard_chart(board["models"])),
        "radars": mark_safe("".join(radars)),
    }
    return bidi_shown(render_to_string("benchmark/leaderboard_file.html", context))
