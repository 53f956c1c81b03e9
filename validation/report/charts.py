"""Inline SVG charts of the study report (pure: figures in, escaped SVG text out).

Their words are in the active interface language (gettext at render time).
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

from django.utils.translation import gettext as _

from benchmark.charts import number, paired_scores_chart, svg_frame, text


class Bar(NamedTuple):
    label: str
    value: float | None
    low: float | None
    high: float | None
    note: str = ""  # e.g. "n=120"
    highlight: bool = False


def bar_from(label: str, fig: dict[str, Any], *, highlight: bool = False) -> Bar:
    return Bar(
        label, fig.get("value"), fig.get("low"), fig.get("high"), f"n={fig.get('n', 0)}", highlight
    )


def interval_chart(
    *,
    title: str,
    bars: Sequence[Bar],
    axis: str,
    lo: float = 0.0,
    hi: float = 1.0,
    threshold: float | None = None,
) -> str:
    """A dot per row with its 95% interval as a whisker; an undefined figure reads "undefined"."""
    left, right, row = 230, 70, 22
    width, height = 760, 74 + row * max(len(bars), 1)
    span = width - left - right

    def x(value: float) -> float:
        return left + span * (min(max(value, lo), hi) - lo) / (hi - lo)

    parts = [text(left + span / 2, height - 6, axis)]
    steps = 5
    for k in range(steps + 1):
        tick = lo + (hi - lo) * k / steps
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="20" x2="{x(tick):.1f}" y2="{height - 34}" '
            'stroke="#eee"/>'
        )
        parts.append(text(x(tick), height - 20, f"{tick:g}", size=9))
    if threshold is not None:
        parts.append(
            f'<line x1="{x(threshold):.1f}" y1="14" x2="{x(threshold):.1f}" '
            f'y2="{height - 34}" stroke="#b42318" stroke-dasharray="4 3"/>'
        )
        gate = _("gate %(threshold)s") % {"threshold": f"{threshold:g}"}
        parts.append(text(x(threshold), 12, gate, size=9, extra='fill="#b42318"'))
    lines = []
    for i, bar in enumerate(bars):
        y = 30 + row * i
        weight = ' font-weight="bold"' if bar.highlight else ""
        parts.append(text(left - 8, y + 4, bar.label, anchor="end", extra=weight))
        color = "#d62728" if bar.highlight else "#1f77b4"
        if bar.low is not None and bar.high is not None:
            parts.append(
                f'<line x1="{x(bar.low):.1f}" y1="{y}" x2="{x(bar.high):.1f}" y2="{y}" '
                f'stroke="{color}" stroke-width="2"/>'
            )
        if bar.value is None:
            parts.append(
                text(left + 4, y + 4, _("undefined"), anchor="start", size=9, extra='fill="#888"')
            )
        else:
            parts.append(f'<circle cx="{x(bar.value):.1f}" cy="{y}" r="4" fill="{color}"/>')
        parts.append(
            text(
                width - right + 6,
                y + 4,
                f"{number(bar.value, 3)} {bar.note}",
                anchor="start",
                size=9,
            )
        )
        interval = "" if bar.low is None else f" [{bar.low:.3f}, {bar.high:.3f}]"
        lines.append(f"{bar.label}: {number(bar.value, 3)}{interval} {bar.note}")
    return svg_frame(
        title=title,
        desc=f"{axis}. " + "; ".join(lines),
        width=width,
        height=height,
        body="".join(parts),
    )


def _label_name(label: str) -> str:
    # The report's label scheme is hit/miss, shown as met / not met; anything else as it is.
    return {"hit": _("met"), "miss": _("not met")}.get(label, label)


def confusion_chart(*, title: str, confusion: dict[str, Any]) -> str:
    """A 2×2 (K×K) heat map: rows the gold label, columns the judge's."""
    labels, matrix = confusion["labels"], confusion["matrix"]
    k, cell, left, top = len(labels), 70, 110, 50
    width, height = left + cell * k + 20, top + cell * k + 40
    biggest = max((v for row in matrix for v in row), default=0) or 1
    parts = [
        text(left + cell * k / 2, 16, _("judge label")),
        text(
            18,
            top + cell * k / 2,
            _("gold label"),
            extra=f'transform="rotate(-90 18 {top + cell * k / 2})"',
        ),
    ]
    lines = []
    names = [_label_name(label) for label in labels]
    for j, name in enumerate(names):
        parts.append(text(left + cell * j + cell / 2, top - 8, name))
    for i, row_label in enumerate(names):
        parts.append(text(left - 8, top + cell * i + cell / 2 + 4, row_label, anchor="end"))
        for j, count in enumerate(matrix[i]):
            shade = 0.12 + 0.78 * count / biggest
            fill = "#1a7f37" if i == j else "#b42318"
            parts.append(
                f'<rect x="{left + cell * j}" y="{top + cell * i}" width="{cell}" '
                f'height="{cell}" fill="{fill}" fill-opacity="{shade:.2f}" '
                'stroke="#fff"/>'
            )
            parts.append(
                text(left + cell * j + cell / 2, top + cell * i + cell / 2 + 5, str(count), size=13)
            )
            lines.append(
                _("gold %(gold)s, judge %(judge)s: %(count)s")
                % {"gold": row_label, "judge": names[j], "count": count}
            )
    return svg_frame(
        title=title, desc="; ".join(lines), width=width, height=height, body="".join(parts)
    )


def score_chart(*, title: str, models: Sequence[dict[str, Any]]) -> str:
    """Each model's score from the gold labels (circle) and from the judge (square)."""
    return paired_scores_chart(
        title=title,
        axis=_("HeartBench score on the sampled cases (0–100)"),
        rows=[(m["model"], m.get("gold"), m.get("judge")) for m in models],
        names=(_("gold"), _("judge")),
        colours=("#1a7f37", "#9467bd"),
        empty=_("no scored models"),
    )


def bland_altman_chart(*, title: str, cases: dict[str, Any]) -> str:
    """Bland–Altman plot: per case, the mean of the two scores (x) against judge − gold (y),
    with the mean difference and the 95 % limits of agreement as horizontal lines."""
    gold, judge, ba = cases["gold"], cases["judge"], cases["bland_altman"]
    left, right, top, bottom = 70, 150, 24, 46
    width, height = 760, 300
    means = [(g + j) / 2 for g, j in zip(gold, judge, strict=True)]
    differences = [j - g for g, j in zip(gold, judge, strict=True)]
    lines = [value for value in (ba["lower_limit"], ba["upper_limit"]) if value is not None]
    # Each line's 95 % interval (bootstrap over questions) as a band, when the report has one.
    bands = [
        (ci["low"], ci["high"], colour)
        for key, colour in (
            ("mean_difference", "#9467bd"),
            ("lower_limit", "#b42318"),
            ("upper_limit", "#b42318"),
        )
        if (ci := ba.get(f"{key}_ci95")) and ci.get("low") is not None
    ]
    lines += [bound for low, high, _colour in bands for bound in (low, high)]
    reach = max([abs(d) for d in differences + lines] + [5.0]) * 1.1

    def x(value: float) -> float:
        return left + (width - left - right) * value / 100

    def y(value: float) -> float:
        return top + (height - top - bottom) * (reach - value) / (2 * reach)

    parts = [
        text(left + (width - left - right) / 2, height - 8, _("mean of gold and judge case score")),
        text(
            16,
            (height - bottom + top) / 2,
            _("judge − gold (points)"),
            extra=f'transform="rotate(-90 16 {(height - bottom + top) / 2})"',
        ),
    ]
    for tick in range(0, 101, 20):
        parts.append(text(x(tick), height - bottom + 16, str(tick), size=9))
    for tick in (-reach / 1.1, 0.0, reach / 1.1):
        parts.append(text(left - 6, y(tick) + 3, f"{tick:.1f}", anchor="end", size=9))
    parts.append(
        f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}" stroke="#ccc"/>'
    )
    for mx, d in zip(means, differences, strict=True):
        parts.append(
            f'<circle cx="{x(mx):.1f}" cy="{y(d):.1f}" r="3" fill="#1f77b4" fill-opacity=".6"/>'
        )
    for low, high, colour in bands:
        parts.append(
            f'<rect x="{left}" y="{y(high):.1f}" width="{width - left - right}" '
            f'height="{y(low) - y(high):.1f}" fill="{colour}" fill-opacity=".08"/>'
        )
    marks = (
        (ba["mean_difference"], _("mean %(v)s"), "#9467bd", ""),
        (ba["lower_limit"], _("−1.96 SD %(v)s"), "#b42318", ' stroke-dasharray="4 3"'),
        (ba["upper_limit"], _("+1.96 SD %(v)s"), "#b42318", ' stroke-dasharray="4 3"'),
    )
    for value, label, colour, dash in marks:
        if value is None:
            continue
        parts.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{width - right}" y2="{y(value):.1f}" '
            f'stroke="{colour}"{dash}/>'
        )
        parts.append(
            text(
                width - right + 6,
                y(value) + 3,
                label % {"v": f"{value:.2f}"},
                anchor="start",
                size=9,
                extra=f'fill="{colour}"',
            )
        )
    desc = _("%(n)s cases; mean difference %(mean)s, limits of agreement %(low)s to %(high)s") % {
        "n": ba["n"],
        "mean": number(ba["mean_difference"], 2),
        "low": number(ba["lower_limit"], 2),
        "high": number(ba["upper_limit"], 2),
    }
    return svg_frame(title=title, desc=desc, width=width, height=height, body="".join(parts))
