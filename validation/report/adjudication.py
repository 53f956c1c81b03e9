"""The adjudication section of the study report: what senior experts decided, and why (pure).

``validation.report.adjudication_selectors`` gathers one record per decided criterion from
the database; ``adjudication_compute`` counts them and lists each decision with the raters' tally
(counts only), whether it overturned the raters' majority, the reason and the senior's
pseudonym; ``adjudication_csv_rows`` gives the section in the report's long CSV.
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from validation.adjudication import overturned, tally

SPLIT = "split"  # a 2/1 split on a criterion the study chose
INCOMPLETE = "incomplete"  # the unit never got three ratings: the senior decided all of it


@dataclass(frozen=True)
class AdjudicationRecord:
    case: str
    model: str
    unit: str  # the unit's opaque token
    criterion: int  # rubric position
    criterion_text: str  # the text of the version the senior decided on
    ability: str
    votes: tuple[bool, ...]  # the raters' labels (never shown to the senior, only counted)
    decision: bool
    reason: str
    senior: str  # pseudonym
    kind: str  # SPLIT or INCOMPLETE


def _word(hit: bool) -> str:
    return "met" if hit else "not met"


def adjudication_compute(
    records: Sequence[AdjudicationRecord], *, unit_states: dict[str, int] | None = None
) -> dict[str, Any]:
    """Counts (units and criteria, splits vs incomplete units, overturned majorities) and one
    row per decision. ``unit_states`` adds how many units still wait for a senior."""
    units = {kind: {r.unit for r in records if r.kind == kind} for kind in (SPLIT, INCOMPLETE)}
    outcome = [overturned(votes=r.votes, decision=r.decision) for r in records]
    decisions = []
    for record, changed in zip(records, outcome, strict=True):
        met, not_met = tally(record.votes)
        decisions.append(
            {
                "case": record.case,
                "model": record.model,
                "unit": record.unit,
                "criterion": record.criterion,
                "criterion_text": record.criterion_text,
                "ability": record.ability,
                "kind": record.kind,
                "met": met,
                "not_met": not_met,
                "tally": f"{met} met · {not_met} not met",
                "decision": _word(record.decision),
                "overturned": changed,
                "reason": record.reason,
                "senior": record.senior,
            }
        )
    states = unit_states or {}
    return {
        "units": len(units[SPLIT]) + len(units[INCOMPLETE]),
        "units_split": len(units[SPLIT]),
        "units_incomplete": len(units[INCOMPLETE]),
        "criteria": len(records),
        "criteria_split": sum(1 for r in records if r.kind == SPLIT),
        "criteria_incomplete": sum(1 for r in records if r.kind == INCOMPLETE),
        "overturned": sum(1 for c in outcome if c is True),
        "upheld": sum(1 for c in outcome if c is False),
        "no_majority": sum(1 for c in outcome if c is None),
        # Units a senior has still to decide: split units and units closed short.
        "units_waiting": states.get("awaiting", 0) + states.get("incomplete", 0),
        "decisions": decisions,
    }


COUNT_KEYS = (
    "units",
    "units_split",
    "units_incomplete",
    "criteria",
    "criteria_split",
    "criteria_incomplete",
    "overturned",
    "upheld",
    "no_majority",
    "units_waiting",
)
DECISION_KEYS = ("tally", "decision", "overturned", "reason", "senior")


def adjudication_csv_rows(section: dict[str, Any] | None) -> Iterator[tuple[Any, ...]]:
    """The section as rows of the report's long CSV: (section, judge, group, name, statistic,
    value, n, ci95_low, ci95_high, method, note); one row per field of each decision, grouped
    by case, named by unit, criterion position and text."""
    if not section:
        return
    blank = (None, None, None, None, "")
    for key in COUNT_KEYS:
        yield ("adjudication", "", "", "", key, section[key], *blank)
    for d in section["decisions"]:
        # Named as the pages number criteria, from 1 (the JSON keeps the 0-based position).
        name = f"{d['unit']} #{d['criterion'] + 1} {d['criterion_text']}"
        for key in DECISION_KEYS:
            yield ("adjudication_decision", "", d["case"], name, key, d[key], *blank)
