"""Reading the CSV files of `heartbench agreement`.

Ratings: columns ``unit,item,rater,label``, and optionally ``case`` (or the column that
``--cluster`` names: what the bootstrap resamples, one value per unit); judge:
``unit,item,label``; an empty label is a missing rating. Labels are read by
``validation.label_spellings`` (the usual spellings of a binary label, one spelling per file,
or a declared scheme). Any problem is a ``RatingsFileError`` naming the file, the line and the
reason, raised before anything is computed.
"""

import csv
import io
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from validation.label_spellings import LabelReader, LabelSchemeError
from validation.statistics import RatingRecord

RATINGS_COLUMNS = ("unit", "item", "rater", "label")
CLUSTER_DEFAULT = "case"  # an optional column of the ratings file: resampled when present
JUDGE_COLUMNS = ("unit", "item", "label")


class RatingsFileError(ValueError):
    def __init__(self, *, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


def _text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RatingsFileError(path=path, line=0, reason=f"cannot read: {exc.strerror}") from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise RatingsFileError(path=path, line=line, reason="not UTF-8 text") from exc


def _rows(
    path: Path, columns: Sequence[str], optional: Sequence[str] = ()
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) for each non-blank data row, after checking the header (which
    may also hold the ``optional`` columns, never empty where present)."""
    reader = csv.reader(io.StringIO(_text(path), newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise RatingsFileError(
                path=path, line=1, reason=f"empty file: expected the header {','.join(columns)}"
            )
        names = [name.strip().lower() for name in header]
        missing = [c for c in columns if c not in names]
        unknown = [n for n in names if n not in columns and n not in optional]
        if missing or unknown or len(set(names)) != len(names):
            raise RatingsFileError(
                path=path,
                line=reader.line_num,
                reason=f"header must be the columns {','.join(columns)} "
                f"(missing: {missing or 'none'}, unexpected: {unknown or 'none'})",
            )
        for fields in reader:
            if not any(field.strip() for field in fields):
                continue
            if len(fields) != len(names):
                raise RatingsFileError(
                    path=path,
                    line=reader.line_num,
                    reason=f"{len(fields)} fields where the header has {len(names)}",
                )
            row = {name: field.strip() for name, field in zip(names, fields, strict=True)}
            for column in (*columns, *(c for c in optional if c in row)):
                if column != "label" and not row[column]:
                    raise RatingsFileError(
                        path=path, line=reader.line_num, reason=f"empty {column}"
                    )
            yield reader.line_num, row
    except csv.Error as exc:
        raise RatingsFileError(path=path, line=reader.line_num, reason=str(exc)) from exc


def _label(path: Path, line: int, text: str, labels: LabelReader) -> str | None:
    if not text:
        return None
    try:
        return labels.read(text, line=line)
    except LabelSchemeError as exc:
        raise RatingsFileError(path=path, line=line, reason=str(exc)) from None


@dataclass(frozen=True)
class RatingsFile:
    records: list[RatingRecord]
    cluster: str  # the column the bootstrap resamples
    clusters: dict[str, str]  # unit -> its value in that column


def ratings_csv_read(
    *, path: Path, labels: LabelReader | None = None, cluster: str | None = None
) -> RatingsFile:
    """Every rating of a ratings CSV; a rater may label an item once. ``labels`` reads the
    labels (default: the usual binary spellings, else the file's own words).

    ``cluster`` names the column the bootstrap resamples (default: ``case`` when the file has
    that column, else ``unit``); every unit must lie in one cluster.
    """
    if cluster == "label":
        raise RatingsFileError(path=path, line=1, reason="the label cannot be the cluster")
    labels = labels or LabelReader(scheme=None)
    records: list[RatingRecord] = []
    first_line: dict[tuple[str, str, str], int] = {}
    clusters: dict[str, tuple[str, int]] = {}  # unit -> (cluster, first line)
    named = dict.fromkeys((CLUSTER_DEFAULT, cluster or CLUSTER_DEFAULT))
    extra = [c for c in named if c not in RATINGS_COLUMNS]
    for line, row in _rows(path, RATINGS_COLUMNS, optional=extra):
        if cluster is None:
            cluster = CLUSTER_DEFAULT if CLUSTER_DEFAULT in row else "unit"
        if cluster not in row:
            raise RatingsFileError(
                path=path, line=1, reason=f"no column {cluster!r} to resample (--cluster)"
            )
        value, seen = clusters.setdefault(row["unit"], (row[cluster], line))
        if value != row[cluster]:
            raise RatingsFileError(
                path=path,
                line=line,
                reason=f"unit {row['unit']!r} is in {cluster} {row[cluster]!r} here but in "
                f"{value!r} on line {seen}",
            )
        key = (row["unit"], row["item"], row["rater"])
        if key in first_line:
            raise RatingsFileError(
                path=path,
                line=line,
                reason=f"rater {row['rater']!r} already labelled item {row['item']!r} of unit "
                f"{row['unit']!r} on line {first_line[key]}",
            )
        first_line[key] = line
        label = _label(path, line, row["label"], labels)
        records.append(RatingRecord(row["unit"], row["item"], row["rater"], label))
    if not records:
        raise RatingsFileError(path=path, line=1, reason="no ratings after the header")
    return RatingsFile(
        records=records,
        cluster=cluster or "unit",
        clusters={unit: value for unit, (value, _) in clusters.items()},
    )


def judge_csv_read(
    *, path: Path, labels: LabelReader | None = None, ratings: LabelReader | None = None
) -> dict[tuple[Hashable, Hashable], str | None]:
    """The judge's label per (unit, item); one label per item. With ``ratings`` (the reader
    of the ratings file), the judge's labels must be hit/miss exactly when the raters' are."""
    reader = labels or LabelReader(scheme=None)
    labels_of: dict[tuple[Hashable, Hashable], str | None] = {}
    first_line: dict[tuple[Hashable, Hashable], int] = {}
    for line, row in _rows(path, JUDGE_COLUMNS):
        key = (row["unit"], row["item"])
        if key in first_line:
            raise RatingsFileError(
                path=path,
                line=line,
                reason=f"item {row['item']!r} of unit {row['unit']!r} already labelled on line "
                f"{first_line[key]}",
            )
        first_line[key] = line
        labels_of[key] = _label(path, line, row["label"], reader)
    if not labels_of:
        raise RatingsFileError(path=path, line=1, reason="no judge labels after the header")
    if ratings is not None and reader.first and ratings.first and reader.binary != ratings.binary:
        line, label = reader.first
        reason = (
            f"label {label!r} is not a spelling of hit/miss, but the ratings file's labels are"
            if ratings.binary
            else f"label {label!r} is a binary label, but the ratings file's labels are not"
        )
        raise RatingsFileError(
            path=path, line=line, reason=f"{reason}; declare the scheme with --categories"
        )
    return labels_of
