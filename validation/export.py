"""Writing export rows as CSV or JSON Lines (pure: takes rows, writes text)."""

import csv
import json
from collections.abc import Iterable, Sequence
from typing import TextIO

from config.csv_safe import csv_cell

FORMATS = ("csv", "jsonl")


def rows_write(
    *, rows: Iterable[dict], fmt: str, out: TextIO, columns: Sequence[str] | None = None
) -> int:
    """Write rows to ``out``; returns how many. CSV columns are ``columns`` (whose header is
    written even when there is no row) or else the first row's, and text a spreadsheet would
    run as a formula is neutralised."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    count = 0
    writer = None
    if fmt == "csv" and columns is not None:
        writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
    for row in rows:
        if fmt == "jsonl":
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            if writer is None:
                writer = csv.DictWriter(out, fieldnames=list(row), lineterminator="\n")
                writer.writeheader()
            writer.writerow({key: csv_cell(value) for key, value in row.items()})
        count += 1
    return count
