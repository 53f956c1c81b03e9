"""Inline SVG charts for the pages and the self-contained reports (leaderboard, study report):
each builder escapes every piece of text it is given, so its output can be marked safe."""

import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from benchmark.taxonomy import BY_CODE, SCORED_CODES


def svg_frame(*, title: str, desc: str, width: int, height: int, body: str) -> str:
    """An inline SVG chart with its title and text alternative, inside a captioned figure."""
    ident = f"c{zlib.crc32((title + desc).encode()):08x}"
    return (
        f'<figure><svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-labelledby="{ident}-t {ident}-d"><title id="{ident}-t">{escape(title)}</title>'
        f'<desc id="{ident}-d">{escape(desc)}</desc>{body}</svg>'
        f"<figcaption>{escape(title)}</figcaption></figure>"
    )


def text(
    x: float, y: float, value: str, *, anchor: str = "middle", size: int = 11, extra: str = ""
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" {extra}>'
        f"{escape(value)}</text>"
    )


def number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def paired_scores_chart(
    *,
    title: str,
    axis: str,
    rows: Sequence[tuple[str, float | None, float | None]],
    names: tuple[str, str],
    colours: tuple[str, str],
    empty: str,
) -> str:
    """Two scores per row on one 0–100 axis: the first a circle, the second a square, joined by
    a line; rows are (label, first, second)."""
    left, right, row = 230, 40, 24
    width, height = 760, 80 + row * max(len(rows), 1)
    span = width - left - right

    def x(value: float) -> float:
        return left + span * value / 100

    parts = [
        text(left + span / 2, height - 6, axis),
        f'<circle cx="{left}" cy="12" r="5" fill="{colours[0]}"/>',
        text(left + 10, 16, names[0], anchor="start"),
        f'<rect x="{left + 150}" y="7" width="10" height="10" fill="{colours[1]}"/>',
        text(left + 166, 16, names[1], anchor="start"),
    ]
    for tick in range(0, 101, 20):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="26" x2="{x(tick):.1f}" y2="{height - 34}" '
            'stroke="#eee"/>'
        )
        parts.append(text(x(tick), height - 20, str(tick), size=9))
    lines = []
    for i, (label, first, second) in enumerate(rows):
        y = 38 + row * i
        parts.append(text(left - 8, y + 4, label, anchor="end"))
        if first is not None and second is not None:
            parts.append(
                f'<line x1="{x(first):.1f}" y1="{y}" x2="{x(second):.1f}" y2="{y}" stroke="#999"/>'
            )
        if first is not None:
            parts.append(f'<circle cx="{x(first):.1f}" cy="{y}" r="5" fill="{colours[0]}"/>')
        if second is not None:
            parts.append(
                f'<rect x="{x(second) - 5:.1f}" y="{y - 5}" width="10" height="10" '
                f'fill="{colours[1]}"/>'
            )
        lines.append(f"{label}: {names[0]} {number(first)}, {names[1]} {number(second)}")
    return svg_frame(
        title=title, desc="; ".join(lines) or empty, width=width, height=height,
        body="".join(parts),
    )  # fmt: skip


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


def radar_grid(
    *, centre_x: float, centre_y: float, radius: float, ring_font: int
) -> tuple[Callable[[int, float], tuple[float, float]], list[str]]:
    """A radar's spokes (one per scored ability) and its rings at 25/50/75/100: the function
    placing a value on a spoke, and the rings' SVG with their labels."""
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
                 size=ring_font, extra='fill="#888"')
        )  # fmt: skip
    return point, parts


def radar_chart(*, model: str, abilities: dict[str, float], color: str) -> str:
    """The 15 ability scores (0–100) of one model on spokes; a missing ability sits at 0."""
    size, centre, radius = 300, 150, 95
    point, parts = radar_grid(centre_x=centre, centre_y=centre, radius=radius, ring_font=8)
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
    point, parts = radar_grid(centre_x=centre_x, centre_y=centre_y, radius=radius, ring_font=9)
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
