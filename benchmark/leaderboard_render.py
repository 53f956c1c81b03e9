"""Renderings of a leaderboard dictionary (Leaderboard.as_dict()): the text table and CSV, and
the rows and rubric notes that the web page and the HTML file both show."""

import csv
import io
from typing import Any

from benchmark.taxonomy import CATEGORIES, SCORED_CODES
from config.csv_safe import csv_cell


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def rank_text(m: dict) -> str:
    """A row's rank, or "—" for a row under the coverage threshold."""
    return "—" if m.get("rank") is None else str(m["rank"])


def row_judge(board: dict, m: dict) -> str:
    """The judge of a row (every row of a board has the board's judge)."""
    return m.get("judge") or (m.get("judge_run") or {}).get("judge") or board.get("judge") or ""


def coverage_text(coverage: dict) -> str:
    """ "8/10 (80%)": scored cases of the split's cases, and the share rounded down."""
    share = coverage["scored"] / coverage["total"] if coverage["total"] else 0.0
    return f"{coverage['scored']}/{coverage['total']} ({int(share * 100 + 1e-9)}%)"


def judge_text(board: dict) -> str:
    """Which judge every row was judged by, and why that one."""
    if not board.get("judge"):
        return ""
    if board.get("judge_chosen_by") == "requested":
        return f"judge {board['judge']} (as asked)"
    return (
        f"judge {board['judge']} (the judge covering the most models, then the most scored "
        "cases; --judge J for another)"
    )


def board_notes(board: dict) -> list[str]:
    """The lines under a board: the coverage threshold and the models left out, if any."""
    lines = []
    if (
        any(m.get("rank") is None for m in board["models"])
        and board.get("min_coverage") is not None
    ):
        total = board["models"][0]["coverage"]["total"]
        lines.append(
            f"unranked (—): coverage below {board['min_coverage'] * 100:g}% of the {total} "
            "cases, or no scored case (--min-coverage to change); shown below the ranked rows."
        )
    if board.get("settings_differ"):
        lines.append(
            "judge settings differ between rows (the settings column): compare with care, or "
            "pick each model's run with --run ID."
        )
    for other in board.get("not_shown") or []:
        judges = ", ".join(other["judges"])
        lines.append(
            f"not on this board: {other['model']} (judged by {judges}: "
            f"--judge {other['judges'][0]})"
        )
    return lines


def _percent(value: float | None) -> float | None:
    return None if value is None else value * 100


def table_rows(board: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per model in board order: ranked rows, then those under the coverage threshold
    (rank None, shown as "—")."""
    rows = []
    for m in board["models"]:
        decay = m["hard_decay"]
        coverage = m["coverage"]
        rows.append(
            {
                "rank": m.get("rank"),
                "rank_label": rank_text(m),
                "model": m["model"],
                "judge": row_judge(board, m),
                "coverage_label": coverage_text(coverage),
                "overall": m["overall"],
                "ci95": m["ci95"],
                "scored": coverage["scored"],
                "total": coverage["total"],
                "coverage_share": coverage["scored"] / coverage["total"]
                if coverage["total"]
                else 0,
                "categories": [m["categories"].get(c) for c in CATEGORIES],
                "normal": m["normal"],
                "hard": m["hard"],
                "decay_points": decay["points"],
                "decay_of_normal": _percent(decay["of_normal"]),
                "decay_of_hard": _percent(decay["of_hard"]),
                "catastrophic": m["catastrophic_cases"],
            }
        )
    return rows


def rubric_notes(board: dict[str, Any]) -> list[dict[str, Any]]:
    """Models whose verdicts were made on a criterion text edited since (counts only)."""
    notes = []
    for m in board["models"]:
        changes = m.get("rubric_changes") or {}
        if changes.get("older_version_verdicts"):
            notes.append(
                {
                    "model": m["model"],
                    "verdicts": changes["older_version_verdicts"],
                    "criteria": changes.get("criteria", 0),
                }
            )
    return notes


def gate_lines(gate: dict[str, Any] | None) -> list[str]:
    """The judge's gate under the table: each judge's decision and conditions, from the newest
    closed study that checked it (``validation.selectors.badge.leaderboard_gate``)."""
    if not gate:
        return ["gate: no closed study has validated a judge of this leaderboard yet."]
    lines = []
    for j in gate["judges"]:
        conditions = ", ".join(
            f"{c['name']}{' ' + c['subject'] if c.get('subject') else ''} {c['status']}"
            for c in j["conditions"]
        )
        lines.append(
            f"gate: {j['judge']} {j['decision']} ({conditions}; study {j['study']}, "
            f"closed {j['closed_at']})"
        )
    return lines


def render_table(board: dict, *, gate: dict[str, Any] | None = None) -> str:
    headers = [
        "#", "model", "judge", "overall", "95% CI", "normal", "hard", "decay pts",
        "decay/normal", "decay/hard", "coverage", "catastrophic",
        *CATEGORIES, "settings",
    ]  # fmt: skip
    rows = []
    for m in board["models"]:
        ci = m["ci95"]
        decay = m["hard_decay"]
        rows.append([
            rank_text(m), m["model"], row_judge(board, m), _num(m["overall"]),
            f"{ci[0]:.2f}–{ci[1]:.2f}" if ci else "—",
            _num(m["normal"]), _num(m["hard"]), _num(decay["points"]),
            _pct(decay["of_normal"]), _pct(decay["of_hard"]),
            coverage_text(m["coverage"]),
            str(m["catastrophic_cases"]),
            *(_num(m["categories"].get(c)) for c in CATEGORIES),
            m.get("judge_settings", ""),
        ])  # fmt: skip
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]  # fmt: skip
    demo = " — DEMO DATA" if board.get("demo") else ""
    title = (
        f"HeartBench leaderboard: {board['dataset']} v{board['dataset_version']}{demo}, "
        f"split {board['split']}, scoring {board['scoring']}"
        + (f", {judge_text(board)}" if board.get("judge") else "")
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
        *board_notes(board),
    ]
    for note in rubric_notes(board):
        lines.append(
            f"rubric changed: {note['model']} has {note['verdicts']} verdicts on "
            f"{note['criteria']} criteria made on an older version than the current one."
        )
    lines += ["", *gate_lines(gate)]
    return "\n".join(lines) + "\n"


def render_csv(board: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([
        "rank", "model", "overall", "ci95_low", "ci95_high", "normal", "hard",
        "decay_points", "decay_of_normal", "decay_of_hard", "scored", "total",
        "catastrophic_cases", *(f"category_{c}" for c in CATEGORIES), *SCORED_CODES,
        "judge", "coverage", "older_version_verdicts", "older_version_criteria", "judge_settings",
    ])  # fmt: skip
    for m in board["models"]:
        ci = m["ci95"] or [None, None]
        decay = m["hard_decay"]
        coverage = m["coverage"]
        changes = m.get("rubric_changes") or {}
        writer.writerow([
            m.get("rank"), csv_cell(m["model"]), m["overall"], ci[0], ci[1], m["normal"],
            m["hard"], decay["points"], decay["of_normal"], decay["of_hard"],
            coverage["scored"], coverage["total"], m["catastrophic_cases"],
            *(m["categories"].get(c) for c in CATEGORIES),
            *(m["abilities"].get(a) for a in SCORED_CODES),
            csv_cell(row_judge(board, m)),
            coverage["scored"] / coverage["total"] if coverage["total"] else 0.0,
            changes.get("older_version_verdicts", 0), changes.get("criteria", 0),
            csv_cell(m.get("judge_settings", "")),
        ])  # fmt: skip
    return out.getvalue()
