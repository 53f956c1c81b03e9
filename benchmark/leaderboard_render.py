"""Text renderings of a leaderboard dictionary (Leaderboard.as_dict()): table and CSV."""

import csv
import io

from benchmark.csv_safe import csv_cell
from benchmark.taxonomy import CATEGORIES, SCORED_CODES


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def render_table(board: dict) -> str:
    headers = [
        "#", "model", "overall", "95% CI", "normal", "hard", "decay pts",
        "decay/normal", "decay/hard", "coverage", "catastrophic",
        *CATEGORIES,
    ]  # fmt: skip
    rows = []
    for rank, m in enumerate(board["models"], start=1):
        ci = m["ci95"]
        decay = m["hard_decay"]
        rows.append([
            str(rank), m["model"], _num(m["overall"]),
            f"{ci[0]:.2f}–{ci[1]:.2f}" if ci else "—",
            _num(m["normal"]), _num(m["hard"]), _num(decay["points"]),
            _pct(decay["of_normal"]), _pct(decay["of_hard"]),
            f"{m['coverage']['scored']}/{m['coverage']['total']}",
            str(m["catastrophic_cases"]),
            *(_num(m["categories"].get(c)) for c in CATEGORIES),
        ])  # fmt: skip
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]  # fmt: skip
    demo = " — DEMO DATA" if board.get("demo") else ""
    title = (
        f"HeartBench leaderboard: {board['dataset']} v{board['dataset_version']}{demo}, "
        f"split {board['split']}, scoring {board['scoring']}"
        + (f", judge {board['judge']}" if board.get("judge") else "")
    )
    lines = [title, ""]
    lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    if not rows:
        lines.append("(no judge runs on this dataset yet)")
    lines += [
        "",
        "decay pts = normal − hard; decay/normal = (normal − hard) / normal; "
        "decay/hard = (normal − hard) / hard (the ratio the paper reports as its 37.8%).",
        "coverage = scored cases / cases; a case with an error or missing verdict is unscored.",
    ]
    stale = [m for m in board["models"] if (m.get("rubric_changes") or {}).get(
        "older_version_verdicts")]  # fmt: skip
    for m in stale:
        changes = m["rubric_changes"]
        lines.append(
            f"rubric changed: {m['model']} has {changes['older_version_verdicts']} verdicts on "
            f"{changes['criteria']} criteria made on an older version than the current one."
        )
    return "\n".join(lines) + "\n"


def render_csv(board: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([
        "rank", "model", "overall", "ci95_low", "ci95_high", "normal", "hard",
        "decay_points", "decay_of_normal", "decay_of_hard", "scored", "total",
        "catastrophic_cases", *(f"category_{c}" for c in CATEGORIES), *SCORED_CODES,
    ])  # fmt: skip
    for rank, m in enumerate(board["models"], start=1):
        ci = m["ci95"] or [None, None]
        decay = m["hard_decay"]
        writer.writerow([
            rank, csv_cell(m["model"]), m["overall"], ci[0], ci[1], m["normal"], m["hard"],
            decay["points"], decay["of_normal"], decay["of_hard"],
            m["coverage"]["scored"], m["coverage"]["total"], m["catastrophic_cases"],
            *(m["categories"].get(c) for c in CATEGORIES),
            *(m["abilities"].get(a) for a in SCORED_CODES),
        ])  # fmt: skip
    return out.getvalue()
