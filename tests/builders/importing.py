"""The malformed-file corpus of the import commands, and running and checking those commands."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark import models

TABLES = (
    models.Dataset,
    models.Case,
    models.RubricItem,
    models.ModelUnderTest,
    models.Response,
    models.Judge,
    models.JudgeRun,
    models.Verdict,
    models.AuditEvent,
)

CORPUS = Path(__file__).resolve().parents[1] / "benchmark" / "malformed"


BASE_DATASET = CORPUS / "base-dataset.jsonl"


# file → (line, part of the reason). Each must fail whole: nothing written.
DATASET_CORPUS = {
    "dataset-truncated-json.jsonl": (2, "invalid JSON"),
    "dataset-missing-field.jsonl": (2, 'missing required field "rubric"'),
    "dataset-wrong-type.jsonl": (2, "dialogue: expected an array, got a string"),
    "dataset-duplicate-ids.jsonl": (3, 'duplicate question_id "m-01" (first on line 1)'),
    "dataset-unknown-ability.jsonl": (2, 'rubric[0].dimension: unknown ability "勇气"'),
    "dataset-points-as-string.jsonl": (
        2,
        'rubric[0].score: expected an integer, got a string ("3")',
    ),
    "dataset-null-points.jsonl": (2, "null points are allowed only on the catastrophic criterion"),
    "dataset-boolean-points.jsonl": (2, "rubric[0].score: expected an integer, got a boolean"),
    "dataset-fractional-points.jsonl": (2, "rubric[0].score: expected an integer, got 2.5"),
    "dataset-nan-points.jsonl": (2, "NaN is not valid JSON"),
    "dataset-bad-role.jsonl": (2, 'dialogue[1].role: expected "A" or "B", got "C"'),
    "dataset-bad-difficulty.jsonl": (2, 'difficulty: expected "normal" or "hard", got "medium"'),
    "dataset-empty-rubric.jsonl": (2, "rubric: must not be empty"),
    "dataset-non-object-line.jsonl": (2, "expected a JSON object, got an array"),
    "dataset-empty-question-id.jsonl": (2, "question_id: must not be empty"),
    "dataset-empty-criterion-text.jsonl": (2, "rubric[0].content: must not be empty"),
    "dataset-bom.jsonl": (1, "byte order mark"),
    "dataset-crlf-error.jsonl": (3, 'difficulty: expected "normal" or "hard", got "easy"'),
    "dataset-invalid-utf8.jsonl": (2, "not valid UTF-8 (byte 0xff"),
    "dataset-empty.jsonl": (1, "file holds no records (it is empty or blank)"),
    "dataset-blank-lines-only.jsonl": (3, "file holds no records"),
}


def table_counts() -> dict[str, int]:
    return {table.__name__: table.objects.count() for table in TABLES}


def run(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


def assert_refused(command: str, path: Path, line: int, reason: str, *args: str) -> None:
    """The command fails naming `PATH:LINE` and the reason, and writes nothing."""
    before = table_counts()
    with pytest.raises(CommandError) as failure:
        run(command, str(path), *args)
    assert f"{path}:{line}: " in str(failure.value)
    assert reason in str(failure.value)
    assert table_counts() == before
