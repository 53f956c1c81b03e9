"""Validation of a seed file: one seed scenario per line, the start of a construction project.

A seed is a case before its rubric: ``id``, ``dialogue`` (the dataset's shape: turns of
``role`` A, the user, or B, the counsellor, ending on the user's turn the model will answer),
``primary_scene``, and optionally ``source`` and ``notes``. Its ``id`` becomes the published
case's ``question_id``. Unknown fields are refused, so a misspelt one is not lost.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.importing.dataset import (
    MAX_QUESTION_ID,
    MAX_SCENE,
    dialogue_parse,
    field_require,
    field_string,
)
from benchmark.importing.reader import (
    DEFAULT_MAX_LINE_BYTES,
    ImportFailure,
    read_objects,
    unique_rows,
)

SEED_FIELDS = ("id", "dialogue", "primary_scene", "source", "notes")
MAX_SOURCE = 500


@dataclass(frozen=True, slots=True)
class SeedRow:
    line: int
    question_id: str  # the seed's "id"
    dialogue: list[dict[str, str]]
    primary_scene: str
    source: str
    notes: str


def _optional(obj: dict[str, Any], key: str, *, max_length: int = 0) -> str:
    return field_string(obj.get(key, ""), key, max_length=max_length)


def seed_from_object(obj: dict[str, Any], *, line: int) -> SeedRow:
    """Validate one parsed line as a seed; ImportFailure names the line and the field."""
    try:
        unknown = sorted(set(obj) - set(SEED_FIELDS))
        if unknown:
            raise ImportFailure(
                None,
                f"unknown field {', '.join(map(repr, unknown))}; a seed has "
                f"{', '.join(SEED_FIELDS)}",
            )
        dialogue = dialogue_parse(field_require(obj, "dialogue"))
        if dialogue[-1]["role"] != "A":
            raise ImportFailure(
                None, "dialogue: the last turn must be the user's (role A), the one answered"
            )
        return SeedRow(
            line=line,
            question_id=field_string(
                field_require(obj, "id"), "id", non_empty=True, max_length=MAX_QUESTION_ID
            ),
            dialogue=dialogue,
            primary_scene=field_string(
                field_require(obj, "primary_scene"), "primary_scene", max_length=MAX_SCENE
            ),
            source=_optional(obj, "source", max_length=MAX_SOURCE),
            notes=_optional(obj, "notes"),
        )
    except ImportFailure as failure:
        raise ImportFailure(line, failure.reason) from None


def iter_seeds(
    path: Path, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, max_file_bytes: int | None = None
) -> Iterator[SeedRow]:
    """Stream validated seeds from a JSONL file; a repeated id fails."""
    objects = read_objects(path, max_line_bytes=max_line_bytes, max_file_bytes=max_file_bytes)
    return unique_rows((seed_from_object(obj, line=line) for line, obj in objects), field="id")
