"""The report's section on units dropped from the sample when the study closed (pure).

A dropped unit is no item of the report's figures (``validation.report.selectors`` leaves it
out), so it counts neither as agreement nor as missing coverage; this section says how many
were dropped, why, and which.
"""

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DroppedUnit:
    case: str  # question id
    model: str
    unit: str  # the unit's opaque token
    reason: str  # validation.closing.NEVER_RATED or PARTLY_RATED
    ratings: int  # rating submissions the unit had


def dropped_compute(records: Sequence[DroppedUnit]) -> dict[str, Any]:
    """How many units were dropped, by reason, and one entry per unit."""
    return {
        "units": len(records),
        "by_reason": dict(sorted(Counter(r.reason for r in records).items())),
        "list": [
            {
                "case": r.case,
                "model": r.model,
                "unit": r.unit,
                "reason": r.reason,
                "ratings": r.ratings,
            }
            for r in records
        ],
    }


def dropped_csv_rows(section: dict[str, Any] | None) -> Iterator[tuple[Any, ...]]:
    """The section as rows of the report's long CSV (section, judge, group, name, statistic,
    value, n, ci95_low, ci95_high, method, note)."""
    if section is None:
        return
    blank = (None, None, None, None, "")
    yield ("dropped", "", "", "", "units", section["units"], *blank)
    for reason, count in section["by_reason"].items():
        yield ("dropped", "", "reason", reason, "units", count, *blank)
    for d in section["list"]:
        for key in ("model", "reason", "ratings"):
            yield ("dropped_unit", "", d["case"], d["unit"], key, d[key], *blank)
