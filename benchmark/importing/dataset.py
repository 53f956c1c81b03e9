"""Validation of the upstream dataset format (one HeartBench case per line) and its warnings."""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.importing.reader import (
    DEFAULT_MAX_LINE_BYTES,
    ContentHasher,
    ImportFailure,
    json_type,
    read_objects,
    unique_rows,
)
from benchmark.taxonomy import CATASTROPHIC, ability_code

ROLES = ("A", "B")
DIFFICULTIES = ("normal", "hard")
# Column widths of benchmark.Case; checked here so SQLite and PostgreSQL refuse alike.
MAX_QUESTION_ID = 100
MAX_SCENE = 200


@dataclass(frozen=True, slots=True)
class CriterionRecord:
    position: int
    dimension: str
    ability: str
    points: int | None
    text: str


@dataclass(frozen=True, slots=True)
class CaseRecord:
    line: int
    question_id: str
    dialogue: list[dict[str, str]]
    rubric: tuple[CriterionRecord, ...]
    difficulty: str
    primary_scene: str
    secondary_scene: str
    # The line had no "difficulty": the file's (from its name, or as given) was taken.
    difficulty_assumed: bool = False

    def canonical(self) -> dict[str, Any]:
        """The case in the upstream shape, with only the fields the platform keeps."""
        return {
            "question_id": self.question_id,
            "dialogue": self.dialogue,
            "rubric": [
                {"dimension": c.dimension, "score": c.points, "content": c.text}
                for c in self.rubric
            ],
            "difficulty": self.difficulty,
            "primary_scene": self.primary_scene,
            "secondary_scene": self.secondary_scene,
        }


@dataclass(frozen=True, slots=True)
class DataWarning:
    """A quirk worth telling the user about that does not stop the import."""

    line: int
    question_id: str
    kind: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "question_id": self.question_id,
            "kind": self.kind,
            "message": self.message,
        }


@dataclass
class DatasetScan:
    """What the validating first pass learns about a file without keeping its content."""

    content_hash: str = ""
    case_count: int = 0
    criterion_count: int = 0
    difficulty_counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(DIFFICULTIES, 0)
    )
    warnings: list[DataWarning] = field(default_factory=list)


def field_require(obj: dict[str, Any], key: str, where: str = "") -> Any:
    if key not in obj:
        raise ImportFailure(None, f'missing required field "{where}{key}"')
    return obj[key]


def field_string(value: Any, name: str, *, non_empty: bool = False, max_length: int = 0) -> str:
    if not isinstance(value, str):
        wanted = "a non-empty string" if non_empty else "a string"
        raise ImportFailure(None, f"{name}: expected {wanted}, got {json_type(value)}")
    if non_empty and not value.strip():
        raise ImportFailure(None, f"{name}: must not be empty")
    if max_length and len(value) > max_length:
        raise ImportFailure(None, f"{name}: longer than {max_length} characters")
    return value


def _choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if value not in choices or not isinstance(value, str):
        allowed = " or ".join(f'"{c}"' for c in choices)
        shown = f'"{value}"' if isinstance(value, str) else json_type(value)
        raise ImportFailure(None, f"{name}: expected {allowed}, got {shown}")
    return value


def _points(value: Any, name: str, *, ability: str) -> int | None:
    if value is None:
        if ability != CATASTROPHIC:
            raise ImportFailure(
                None, f"{name}: null points are allowed only on the catastrophic criterion (其他)"
            )
        return None
    # bool is an int subclass in Python, but true/false as points is a data error.
    if isinstance(value, bool) or not isinstance(value, int | float):
        shown = f' ("{value}")' if isinstance(value, str) else ""
        raise ImportFailure(None, f"{name}: expected an integer, got {json_type(value)}{shown}")
    if isinstance(value, float) and not value.is_integer():
        raise ImportFailure(None, f"{name}: expected an integer, got {value}")
    return int(value)


def _list(value: Any, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise ImportFailure(None, f"{name}: expected an array, got {json_type(value)}")
    if not value:
        raise ImportFailure(None, f"{name}: must not be empty")
    return value


def _object(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ImportFailure(None, f"{name}: expected an object, got {json_type(value)}")
    return value


def dialogue_parse(value: Any) -> list[dict[str, str]]:
    turns = []
    for index, raw in enumerate(_list(value, "dialogue")):
        where = f"dialogue[{index}]"
        turn = _object(raw, where)
        role = _choice(field_require(turn, "role", f"{where}."), f"{where}.role", ROLES)
        content = field_string(field_require(turn, "content", f"{where}."), f"{where}.content")
        turns.append({"role": role, "content": content})
    return turns


def _rubric(value: Any) -> tuple[CriterionRecord, ...]:
    criteria = []
    for index, raw in enumerate(_list(value, "rubric")):
        where = f"rubric[{index}]"
        item = _object(raw, where)
        dimension = field_string(
            field_require(item, "dimension", f"{where}."), f"{where}.dimension"
        )
        ability = ability_code(dimension)
        if ability is None:
            raise ImportFailure(None, f'{where}.dimension: unknown ability "{dimension}"')
        points = _points(
            field_require(item, "score", f"{where}."), f"{where}.score", ability=ability
        )
        text = field_string(
            field_require(item, "content", f"{where}."), f"{where}.content", non_empty=True
        )
        criteria.append(CriterionRecord(index, dimension, ability, points, text))
    return tuple(criteria)


def difficulty_from_name(path: Path) -> str | None:
    """The difficulty a file's name states as a word ("question_hard.jsonl"), if exactly one:
    the released split files carry no "difficulty" field."""
    words = set(re.split(r"[^a-z]+", path.stem.lower()))
    named = [level for level in DIFFICULTIES if level in words]
    return named[0] if len(named) == 1 else None


def case_from_object(
    obj: dict[str, Any], *, line: int, difficulty: str | None = None
) -> CaseRecord:
    """Validate one parsed line as a case; ImportFailure names the line and the field.

    `difficulty` is taken for a line without the field; without it the field is required."""
    assumed = difficulty is not None and "difficulty" not in obj
    try:
        return CaseRecord(
            line=line,
            question_id=field_string(
                field_require(obj, "question_id"),
                "question_id",
                non_empty=True,
                max_length=MAX_QUESTION_ID,
            ),
            dialogue=dialogue_parse(field_require(obj, "dialogue")),
            rubric=_rubric(field_require(obj, "rubric")),
            difficulty=difficulty
            if assumed
            else _choice(field_require(obj, "difficulty"), "difficulty", DIFFICULTIES),
            primary_scene=field_string(
                field_require(obj, "primary_scene"), "primary_scene", max_length=MAX_SCENE
            ),
            secondary_scene=field_string(
                field_require(obj, "secondary_scene"), "secondary_scene", max_length=MAX_SCENE
            ),
            difficulty_assumed=assumed,
        )
    except ImportFailure as failure:
        raise ImportFailure(line, failure.reason) from None


def case_warnings(case: CaseRecord) -> list[DataWarning]:
    """The data-quality warnings of DESIGN.md: at most one per kind per case."""
    found = []
    catastrophic = [c for c in case.rubric if c.ability == CATASTROPHIC]
    if not catastrophic:
        found.append(("no_catastrophic", "has no catastrophic criterion (其他)"))
    elif len(catastrophic) > 1 or any(c.points is not None for c in catastrophic):
        points = ", ".join("null" if c.points is None else str(c.points) for c in catastrophic)
        found.append(
            (
                "irregular_catastrophic",
                f"has {len(catastrophic)} catastrophic criteria (points: {points}); "
                "exactly one with null points is expected",
            )
        )
    if not case.primary_scene.strip():
        found.append(("empty_primary_scene", "has an empty primary_scene"))
    return [
        DataWarning(case.line, case.question_id, kind, f"case {case.question_id} {text}")
        for kind, text in found
    ]


def iter_cases(
    path: Path,
    *,
    difficulty: str | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_file_bytes: int | None = None,
) -> Iterator[CaseRecord]:
    """Stream validated cases from an upstream JSONL file; a repeated question_id fails.

    `difficulty` is taken for a line without one (see `case_from_object`)."""
    objects = read_objects(path, max_line_bytes=max_line_bytes, max_file_bytes=max_file_bytes)
    return unique_rows(
        case_from_object(obj, line=line, difficulty=difficulty) for line, obj in objects
    )


def dataset_scan(
    path: Path,
    *,
    difficulty: str | None = None,
    difficulty_source: str = "as given",
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_file_bytes: int | None = None,
) -> DatasetScan:
    """Validate a whole file and learn its hash, counts and warnings, keeping no case.

    Lines that took `difficulty` are told in one warning, naming `difficulty_source`."""
    scan = DatasetScan()
    hasher = ContentHasher()
    assumed: list[CaseRecord] = []
    cases = iter_cases(
        path, difficulty=difficulty, max_line_bytes=max_line_bytes, max_file_bytes=max_file_bytes
    )
    for case in cases:
        hasher.add(case.canonical())
        scan.case_count += 1
        scan.criterion_count += len(case.rubric)
        scan.difficulty_counts[case.difficulty] += 1
        scan.warnings.extend(case_warnings(case))
        if case.difficulty_assumed:
            assumed.append(case)
    if assumed:
        first = assumed[0]
        message = (
            f'no "difficulty" on {len(assumed)} of {scan.case_count} cases: '
            f'taken as "{difficulty}" {difficulty_source}'
        )
        scan.warnings.insert(
            0, DataWarning(first.line, first.question_id, "difficulty_assumed", message)
        )
    scan.content_hash = hasher.hexdigest()
    return scan
