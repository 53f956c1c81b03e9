"""Streaming reader for upstream JSONL files: one JSON object per line, checked as it is read.

The reader holds one line in memory at a time, refuses a line longer than its limit before
parsing it, refuses text no database can store (``config.storable``, the web's rule too), and
reports every problem as ``ImportFailure(line, reason)``.
"""

import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from config.storable import json_fault


class _Keyed(Protocol):
    line: int
    question_id: str


R = TypeVar("R", bound=_Keyed)

DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024
UTF8_BOM = b"\xef\xbb\xbf"


class ImportFailure(Exception):
    """Bad input: the 1-based line it was found on (None: the file as a whole) and why."""

    def __init__(self, line: int | None, reason: str, *, label: str = "") -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason
        self.label = label

    def with_label(self, label: str) -> "ImportFailure":
        return ImportFailure(self.line, self.reason, label=label)

    def __str__(self) -> str:
        where = self.label or "input"
        return f"{where}:{self.line}: {self.reason}" if self.line else f"{where}: {self.reason}"


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _reject_constant(name: str) -> None:
    # Python's json accepts NaN and Infinity, which are not JSON and no other reader accepts.
    raise ValueError(f"{name} is not valid JSON")


def _parse(content: bytes) -> dict[str, Any] | None:
    """One line's object, or None for a blank line."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFailure(
            None, f"not valid UTF-8 (byte 0x{content[exc.start]:02x} at byte {exc.start + 1})"
        ) from None
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        # json's messages read "Expecting value" or "Unterminated string starting at".
        at = "" if exc.msg.endswith(" at") else " at"
        raise ImportFailure(None, f"invalid JSON: {exc.msg}{at} column {exc.colno}") from None
    except ValueError as exc:
        raise ImportFailure(None, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise ImportFailure(None, "invalid JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise ImportFailure(None, f"expected a JSON object, got {json_type(value)}")
    fault = json_fault(value)
    if fault is not None:
        raise ImportFailure(
            None, f"{fault.path}: holds a character that cannot be stored (a NUL, or half of a "
            "surrogate pair)",
        )  # fmt: skip
    return value


def read_objects(
    path: Path,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_file_bytes: int | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for every non-blank line of a JSONL file.

    Lines may end in LF or CRLF. Blank lines are skipped but counted, so line numbers match
    what an editor shows. The first problem raises ImportFailure; a file with no object at
    all (empty, or blank lines only) is a failure too.
    """
    try:
        size = path.stat().st_size
        handle = path.open("rb")
    except OSError as exc:
        raise ImportFailure(None, f"cannot read the file: {exc.strerror or exc}") from None
    if max_file_bytes is not None and size > max_file_bytes:
        handle.close()
        raise ImportFailure(
            None, f"file is {size:,} bytes, over the import limit of {max_file_bytes:,} bytes"
        )
    line_no = 0
    seen_object = False
    with handle:
        while True:
            # Reading one byte past the limit tells an over-long line from one that just fits.
            raw = handle.readline(max_line_bytes + 1)
            if not raw:
                break
            line_no += 1
            content = raw.rstrip(b"\n").rstrip(b"\r")
            if len(content) > max_line_bytes:
                raise ImportFailure(
                    line_no, f"line is longer than {max_line_bytes:,} bytes; refusing to parse it"
                )
            if line_no == 1 and content.startswith(UTF8_BOM):
                raise ImportFailure(
                    1, "file starts with a UTF-8 byte order mark (BOM); save it without the BOM"
                )
            try:
                value = _parse(content)
            except ImportFailure as failure:
                raise ImportFailure(line_no, failure.reason) from None
            if value is None:
                continue
            seen_object = True
            yield line_no, value
    if not seen_object:
        raise ImportFailure(max(line_no, 1), "file holds no records (it is empty or blank)")


def unique_rows(rows: Iterable[R], *, field: str = "question_id") -> Iterator[R]:
    """Pass rows (which carry ``line`` and ``question_id``) through; a repeated id fails,
    named as the file's ``field``."""
    first_line: dict[str, int] = {}
    for row in rows:
        earlier = first_line.setdefault(row.question_id, row.line)
        if earlier != row.line:
            raise ImportFailure(
                row.line, f'duplicate {field} "{row.question_id}" (first on line {earlier})'
            )
        yield row


class ContentHasher:
    """sha256 over the canonical JSON of each record, one per line.

    Canonical means sorted keys, no ASCII escaping and no insignificant whitespace, so the
    same content hashes the same whatever its line ends, key order or spacing.
    """

    def __init__(self) -> None:
        self._digest = hashlib.sha256()

    def add(self, record: Any) -> None:
        line = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        self._digest.update(line.encode("utf-8"))
        self._digest.update(b"\n")

    def hexdigest(self) -> str:
        return self._digest.hexdigest()
