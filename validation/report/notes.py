"""The report's section on rater notes: what experts wrote beside their labels (pure).

``validation.report.notes_selectors`` gathers one record per non-empty note of a rating
submission (units dropped at the close are left out, as in every figure); ``notes_compute``
groups them by unit and criterion, each note under the rater's pseudonym (never a user name:
the report is blind to who rated) with the label it explains and the criterion's gold.
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NoteRecord:
    case: str  # question id
    model: str
    unit: str  # the unit's opaque token
    criterion: int  # rubric position
    criterion_text: str  # the criterion's current text
    ability: str
    rater: str  # pseudonym
    hit: bool  # the label the note goes with
    note: str
    version: int  # the criterion version the rater saw
    gold: bool | None  # the criterion's gold label, None while it has none


def _word(hit: bool | None) -> str | None:
    return None if hit is None else ("met" if hit else "not met")


def notes_compute(records: Sequence[NoteRecord]) -> dict[str, Any]:
    """Counts (notes, criteria and units with a note) and one entry per unit and criterion,
    in case, model and rubric order, its notes by rater pseudonym."""
    grouped: dict[tuple[str, str, str, int], list[NoteRecord]] = {}
    for record in sorted(records, key=lambda r: (r.case, r.model, r.unit, r.criterion, r.rater)):
        grouped.setdefault((record.case, record.model, record.unit, record.criterion), []).append(
            record
        )
    items = []
    for (case, model, unit, criterion), notes in grouped.items():
        first = notes[0]
        items.append(
            {
                "case": case,
                "model": model,
                "unit": unit,
                "criterion": criterion,
                "criterion_text": first.criterion_text,
                "ability": first.ability,
                "gold": _word(first.gold),
                "notes": [
                    {"rater": n.rater, "label": _word(n.hit), "note": n.note, "version": n.version}
                    for n in notes
                ],
            }
        )
    return {
        "notes": len(records),
        "criteria": len(items),
        "units": len({(i["case"], i["model"], i["unit"]) for i in items}),
        "items": items,
    }


def notes_csv_rows(section: dict[str, Any] | None) -> Iterator[tuple[Any, ...]]:
    """The section as rows of the report's long CSV (section, judge, group, name, statistic,
    value, n, ci95_low, ci95_high, method, note): one row per note, grouped by case, named by
    unit and criterion, the rater's pseudonym as the statistic and the label in the note."""
    if not section:
        return
    blank = (None, None, None, None)
    yield ("rater_notes", "", "", "", "notes", section["notes"], *blank, "")
    for item in section["items"]:
        name = f"{item['unit']} #{item['criterion']} {item['criterion_text']}"
        for n in item["notes"]:
            yield ("rater_note", "", item["case"], name, n["rater"], n["note"], *blank, n["label"])
