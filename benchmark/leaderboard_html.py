"""The leaderboard as one self-contained HTML file: table with intervals, a radar chart of the
15 abilities per model, normal against hard, and the judge's gate when a study checked it.

Inline CSS and SVG only (no script, no external request), so the file can be mailed, archived
and printed. Every piece of data text is escaped: model and judge names come from outside.
"""

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from benchmark.leaderboard_render import (
    board_notes,
    coverage_text,
    judge_text,
    rank_text,
    row_judge,
)
from benchmark.report_html import STYLE, number, paired_scores_chart, svg_frame, text
from benchmark.taxonomy import BY_CODE, CATEGORIES, CATEGORY_NAMES, SCORED_CODES

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
    "#637939",
    "#843c39",
)


def radar_chart(*, model: str, abilities: dict[str, float], color: str) -> str:
    """The 15 ability scores (0–100) of one model on spokes; a missing ability sits at 0."""
    size, centre, radius = 300, 150, 95
    spokes = len(SCORED_CODES)

    def point(index: int, value: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * index / spokes
        r = radius * value / 100
        return centre + r * math.cos(angle), centre + r * math.sin(angle)

    parts = []
    for ring in (25, 50, 75, 100):
        ring_points = " ".join(
            f"{x:.1f},{y:.1f}" for x, y in (point(i, ring) for i in range(spokes))
        )
        parts.append(f'<polygon points="{ring_points}" fill="none" stroke="#ddd"/>')
        parts.append(
            text(
                centre + 3,
                centre - radius * ring / 100 + 10,
                str(ring),
                anchor="start",
                size=8,
                extra='fill="#888"',
            )
        )
    for i, code in enumerate(SCORED_CODES):
        x, y = point(i, 100)
        parts.append(f'<line x1="{centre}" y1="{centre}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        lx, ly = point(i, 118)
        parts.append(text(lx, ly + 3, BY_CODE[code].zh, size=9))
    shape = " ".join(
        f"{x:.1f},{y:.1f}"
        for x, y in (point(i, abilities.get(c) or 0) for i, c in enumerate(SCORED_CODES))
    )
    parts.append(
        f'<polygon points="{shape}" fill="{color}" fill-opacity=".25" stroke="{color}" '
        'stroke-width="1.5"/>'
    )
    desc = f"Ability scores of {model} from 0 at the centre to 100 at the rim: " + ", ".join(
        f"{BY_CODE[c].en} {number(abilities.get(c), 1)}" for c in SCORED_CODES
    )
    return svg_frame(
        title=f"Abilities of {model} (score 0–100 on each axis)",
        desc=desc,
        width=size,
        height=size,
        body="".join(parts),
    )


# Stroke patterns beside the colours, so compared models stay apart in grey print too.
DASHES = ("", "7 3", "2 3", "9 3 2 3", "1 2")


def radar_compare_chart(
    *,
    series: Sequence[tuple[str, Mapping[str, float | None]]],
    labels: Mapping[str, str],
    title: str,
    empty: str,
) -> str:
    """Up to five models' 15 ability scores (0–100) overlaid on one radar.

    ``series`` is (model name, ability scores) per model; ``labels`` names each ability code in
    the reader's language. A missing ability sits at 0 on the drawing and "—" in the text
    alternative, which lists every score so the chart is readable without seeing it.
    """
    width, centre_x, centre_y, radius = 640, 320, 235, 160
    spokes = len(SCORED_CODES)

    def point(index: int, value: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * index / spokes
        r = radius * value / 100
        return centre_x + r * math.cos(angle), centre_y + r * math.sin(angle)

    parts = []
    for ring in (25, 50, 75, 100):
        ring_points = " ".join(
            f"{x:.1f},{y:.1f}" for x, y in (point(i, ring) for i in range(spokes))
        )
        parts.append(f'<polygon points="{ring_points}" fill="none" stroke="#ddd"/>')
        parts.append(
            text(centre_x + 3, centre_y - radius * ring / 100 + 10, str(ring), anchor="start",
                 size=9, extra='fill="#888"')
        )  # fmt: skip
    for i, code in enumerate(SCORED_CODES):
        x, y = point(i, 100)
        parts.append(
            f'<line x1="{centre_x}" y1="{centre_y}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
        )
        lx, ly = point(i, 112)
        anchor = "start" if lx > centre_x + 4 else "end" if lx < centre_x - 4 else "middle"
        parts.append(
            text(lx, ly + 4, labels.get(code, code), anchor=anchor, size=11,
                 extra='class="spoke"')
        )  # fmt: skip
    lines = []
    legend_y = centre_y + radius + 48
    for k, (model, abilities) in enumerate(series):
        colour, dash = PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)]
        shape = " ".join(
            f"{x:.1f},{y:.1f}"
            for x, y in (point(i, abilities.get(c) or 0) for i, c in enumerate(SCORED_CODES))
        )
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<polygon points="{shape}" fill="{colour}" fill-opacity=".10" stroke="{colour}" '
            f'stroke-width="2"{dashed}/>'
        )
        y = legend_y + 20 * k
        parts.append(
            f'<line x1="40" y1="{y}" x2="76" y2="{y}" stroke="{colour}" stroke-width="3"{dashed}/>'
        )
        parts.append(text(84, y + 4, model, anchor="start", extra='class="legend"'))
        lines.append(
            f"{model}: "
            + ", ".join(f"{labels.get(c, c)} {number(abilities.get(c), 1)}" for c in SCORED_CODES)
        )
    height = legend_y + 20 * max(len(series), 1)
    return svg_frame(
        title=title,
        desc="; ".join(lines) or empty,
        width=width,
        height=height,
        body="".join(parts),
    )


def difficulty_bars_chart(
    *,
    rows: Sequence[tuple[str, float | None, float | None]],
    names: tuple[str, str],
    title: str,
    axis: str,
    empty: str,
) -> str:
    """Grouped bars: per model (label, normal, hard), a normal bar above a hard bar on 0–100."""
    left, right, group = 230, 60, 34
    width, height = 760, 70 + group * max(len(rows), 1)
    span = width - left - right
    colours = ("#1f77b4", "#d62728")

    def x(value: float) -> float:
        return left + span * value / 100

    parts = [
        f'<rect x="{left}" y="6" width="12" height="10" fill="{colours[0]}"/>',
        text(left + 18, 15, names[0], anchor="start"),
        f'<rect x="{left + 150}" y="6" width="12" height="10" fill="{colours[1]}"/>',
        text(left + 168, 15, names[1], anchor="start"),
        text(left + span / 2, height - 4, axis),
    ]
    for tick in range(0, 101, 20):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="24" x2="{x(tick):.1f}" y2="{height - 30}" '
            'stroke="#eee"/>'
        )
        parts.append(text(x(tick), height - 18, str(tick), size=9))
    lines = []
    for i, (label, normal, hard) in enumerate(rows):
        top = 28 + group * i
        parts.append(text(left - 8, top + 16, label, anchor="end"))
        for j, value in enumerate((normal, hard)):
            y = top + 2 + 14 * j
            if value is None:
                parts.append(text(left + 4, y + 10, "—", anchor="start", size=10))
                continue
            parts.append(
                f'<rect x="{left}" y="{y}" width="{max(x(value) - left, 0.5):.1f}" height="12" '
                f'fill="{colours[j]}"/>'
            )
            parts.append(text(x(value) + 4, y + 10, number(value, 1), anchor="start", size=10))
        lines.append(f"{label}: {names[0]} {number(normal)}, {names[1]} {number(hard)}")
    return svg_frame(
        title=title,
        desc="; ".join(lines) or empty,
        width=width,
        height=height,
        body="".join(parts),
    )


def normal_hard_chart(models: Sequence[dict[str, Any]]) -> str:
    """Each model's normal and hard overall score on one 0–100 axis."""
    return paired_scores_chart(
        title="Normal against hard split (overall score per model)",
        axis="overall score (0–100)",
        rows=[(m["model"], m.get("normal"), m.get("hard")) for m in models],
        names=("normal", "hard"),
        colours=("#1f77b4", "#d62728"),
        empty="no models",
    )


def _gate_box(gate: dict[str, Any] | None) -> str:
    if not gate:
        return (
            '<div class="gate"><h3>Judge validation</h3><p class="note">No closed study has '
            "validated a judge of this leaderboard yet.</p></div>"
        )
    items = []
    for j in gate["judges"]:
        agreement = j["agreement"]
        verdict = (
            "—"
            if j["passed"] is None
            else '<span class="pass">passes</span>'
            if j["passed"]
            else '<span class="fail">fails</span>'
        )
        interval = (
            f" [{number(agreement.get('low'), 3)}, {number(agreement.get('high'), 3)}]"
            if agreement.get("low") is not None
            else ""
        )
        unconfirmed = (
            " (not confirmed: the interval reaches below)"
            if j.get("confirmed") is False and j["passed"]
            else ""
        )
        items.append(
            f"<li>{escape(j['judge'])}: agreement {number(agreement['value'], 3)}"
            f"{escape(interval)} on {agreement['n']} criteria — {verdict}{unconfirmed} "
            f"(threshold {j['threshold']:.2f}; study <strong>{escape(j['study'])}</strong>, "
            f"closed {escape(j['closed_at'] or '')})</li>"
        )
    return (
        f'<div class="gate"><h3>Judge validation</h3><ul>{"".join(items)}</ul>'
        '<p class="note">Each judge from the newest closed study that checked it: agreement '
        "with the experts' golden standard, 95% case-clustered bootstrap interval.</p></div>"
    )


def _table(board: dict[str, Any]) -> str:
    head = (
        '<tr><th>#</th><th class="name">model</th><th>judge</th><th>overall</th><th>95% CI</th>'
        "<th>normal</th><th>hard</th><th>decay / hard</th><th>coverage</th>"
        "<th>catastrophic</th>"
        + "".join(
            f"<th>{escape(CATEGORY_NAMES[c][1])}<br>{escape(CATEGORY_NAMES[c][0])}</th>"
            for c in CATEGORIES
        )
        + "</tr>"
    )
    rows = []
    for m in board["models"]:
        ci = m["ci95"]
        decay = m["hard_decay"]["of_hard"]
        ranked = "unranked" if m.get("rank") is None else "ranked"
        rows.append(
            f'<tr class="{ranked}"><td>{rank_text(m)}</td>'
            f'<td class="name">{escape(m["model"])}</td>'
            f"<td>{escape(row_judge(board, m))}</td>"
            f"<td><strong>{number(m['overall'])}</strong></td>"
            f"<td>{f'{ci[0]:.2f}–{ci[1]:.2f}' if ci else '—'}</td>"
            f"<td>{number(m['normal'])}</td><td>{number(m['hard'])}</td>"
            f"<td>{'—' if decay is None else f'{decay * 100:.1f}%'}</td>"
            f"<td>{coverage_text(m['coverage'])}</td>"
            f"<td>{m['catastrophic_cases']}</td>"
            + "".join(f"<td>{number(m['categories'].get(c))}</td>" for c in CATEGORIES)
            + "</tr>"
        )
    if not rows:
        rows.append(
            f'<tr><td colspan="{10 + len(CATEGORIES)}">No judge runs on this dataset yet.</td></tr>'
        )
    return f'<table id="leaderboard"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _rubric_note(board: dict[str, Any]) -> str:
    """Models whose verdicts were made on a criterion text that has been edited since."""
    stale = [
        (m["model"], m["rubric_changes"])
        for m in board["models"]
        if (m.get("rubric_changes") or {}).get("older_version_verdicts")
    ]
    if not stale:
        return ""
    items = "".join(
        f"<li>{escape(model)}: {c['older_version_verdicts']} verdicts on {c['criteria']} "
        "criteria</li>"
        for model, c in stale
    )
    return (
        '<div class="rubric-changes"><p class="note">Rubric changed: these judge runs hold '
        "verdicts made on an older version of their criterion than the current one (the "
        f"criterion was edited after the judge saw it).</p><ul>{items}</ul></div>"
    )


def render_html(board: dict[str, Any], *, gate: dict[str, Any] | None = None) -> str:
    """The whole leaderboard document; ``gate`` is the judge's gate from a closed study."""
    demo = ' — <span class="demo">DEMO DATA</span>' if board.get("demo") else ""
    judge = f", {escape(judge_text(board))}" if board.get("judge") else ""
    notes = "".join(f"<li>{escape(line)}</li>" for line in board_notes(board))
    title = f"HeartBench leaderboard: {board['dataset']} v{board['dataset_version']}"
    radars = "".join(
        radar_chart(model=m["model"], abilities=m["abilities"], color=PALETTE[i % len(PALETTE)])
        for i, m in enumerate(board["models"])
    )
    scoring = (
        "a hit on any catastrophic criterion zeroes the case"
        if board["scoring"] == "paper"
        else "the released scorer's rule (catastrophic criteria fire only with positive points)"
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{STYLE}tr.unranked td{{color:#777}}</style></head>"
        f"<body><h1>{escape(title)}{demo}</h1>"
        f"<p>Split <strong>{escape(board['split'])}</strong>, scoring "
        f"<strong>{escape(board['scoring'])}</strong> ({scoring}){judge}.</p>"
        f'<div class="side">{_table(board)}{_gate_box(gate)}</div>'
        f"{_rubric_note(board)}"
        + (f'<ul class="note board-notes">{notes}</ul>' if notes else "")
        + '<p class="note">95% CI: case-resampling bootstrap of the overall score. Coverage counts '
        "scored cases; a case with a judge error or a missing verdict is unscored, never "
        '"not met". Decay / hard = (normal − hard) / hard, the ratio the paper reports.</p>'
        f"<h2>Normal against hard</h2>{normal_hard_chart(board['models'])}"
        f"<h2>Abilities</h2>{radars or '<p>No models.</p>'}</body></html>\n"
    )
