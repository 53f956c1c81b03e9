"""Small inline SVG charts of the dashboard, drawn with the report helpers (escaped text)."""

from collections.abc import Sequence
from datetime import date

from benchmark.charts import svg_frame, text


def daily_bars(*, title: str, rows: Sequence[tuple[date, int]], empty: str) -> str:
    """One bar per day (oldest left), the busiest day's count at the top of the axis."""
    left, right, top, bottom = 36, 10, 14, 30
    width, height = 640, 170
    span_x, span_y = width - left - right, height - top - bottom
    peak = max((n for _, n in rows), default=0)
    step = span_x / max(len(rows), 1)
    parts = [
        f'<line x1="{left}" y1="{top + span_y}" x2="{width - right}" y2="{top + span_y}" '
        'stroke="#999"/>',
        text(left - 4, top + span_y, "0", anchor="end", size=9),
    ]
    if peak:
        parts.append(text(left - 4, top + 4, str(peak), anchor="end", size=9))
    for i, (day, n) in enumerate(rows):
        bar = span_y * n / peak if peak else 0
        x = left + i * step
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{top + span_y - bar:.1f}" width="{max(step - 2, 1):.1f}" '
            f'height="{bar:.1f}" fill="#1f77b4"><title>{day.isoformat()}: {n}</title></rect>'
        )
        last = i == len(rows) - 1
        # A date every week, and the last day unless it would overlap the previous one.
        if i % 7 == 0 or (last and i % 7 >= 3):
            parts.append(text(x + step / 2, height - 12, day.strftime("%m-%d"), size=9))
    desc = ", ".join(f"{day.isoformat()}: {n}" for day, n in rows if n) or empty
    return svg_frame(title=title, desc=desc, width=width, height=height, body="".join(parts))
