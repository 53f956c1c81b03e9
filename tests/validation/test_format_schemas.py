"""The agreement CSVs and the study export against their JSON Schemas
(``validation/schemas/``): what the readers accept is valid, what they refuse for a single row
is invalid, and every row `heartbench study export` writes is valid."""

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from benchmark.models import RubricItem, Verdict
from tests.builders.accounts import ExpertFactory
from tests.builders.schemas import schema_validator
from tests.builders.studies import open_study
from validation.ratings_csv import (
    JUDGE_COLUMNS,
    RATINGS_COLUMNS,
    RatingsFileError,
    judge_csv_read,
    ratings_csv_read,
)

DATA = Path(__file__).resolve().parent / "data"
READERS = {"ratings": ratings_csv_read, "judge-labels": judge_csv_read}
COLUMNS = {"ratings": RATINGS_COLUMNS, "judge-labels": JUDGE_COLUMNS}


def csv_rows(path: Path) -> list[dict]:
    """Rows keyed by the header as the reader reads it (names and values stripped)."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return [
            {name.strip().lower(): value.strip() for name, value in row.items()}
            for row in csv.DictReader(handle)
        ]


@pytest.mark.parametrize(
    ("schema", "name"),
    [("ratings", "ratings.csv"), ("ratings", "single_rater.csv"), ("judge-labels", "judge.csv")],
)
def test_the_files_the_agreement_command_reads_are_valid(schema, name):
    READERS[schema](path=DATA / name)
    validator = schema_validator(schema)
    assert sorted(validator.schema["required"]) == sorted(COLUMNS[schema])
    for row in csv_rows(DATA / name):
        validator.validate(row)


@pytest.mark.parametrize(
    ("schema", "text"),
    [
        ("ratings", "unit,item,rater,label\nu1,c1, ,hit\n"),
        ("ratings", "unit,item,rater,label\n ,c1,A,hit\n"),
        ("ratings", "unit,item,rater,label,extra\nu1,c1,A,hit,x\n"),
        ("judge-labels", "unit,item,label\nu1,,hit\n"),
        ("judge-labels", "unit,item,rater,label\nu1,c1,A,hit\n"),
    ],
)
def test_a_row_the_reader_refuses_is_refused_by_the_schema(schema, text, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RatingsFileError):
        READERS[schema](path=path)
    (row,) = csv_rows(path)
    assert not schema_validator(schema).is_valid(row)


@pytest.mark.django_db
def test_every_study_export_row_is_valid():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=2, experts=experts, judge=True, name="schema-study")
    run = study.judge_runs.get()
    for response in run.model.responses.all():
        first = response.case.rubric.order_by("position").first()
        Verdict.objects.create(run=run, response=response, rubric_item=first, state="met")
    for expert in experts[:2]:  # two of three raters: no gold yet, empty slots
        while assignment := annotation_services.assignment_claim_next(
            user=expert.user, pool=study.pool
        ):
            tokens = annotation_selectors.criterion_tokens(assignment=assignment)
            items = RubricItem.objects.in_bulk(tokens.values())
            labels = [
                {"criterion": token, "hit": items[pk].position % 2 == 0, "note": "=1+1"}
                for token, pk in tokens.items()
            ]
            annotation_services.assignment_submit(assignment=assignment, labels=labels)
    exported = {}
    for fmt in ("jsonl", "csv"):
        out = io.StringIO()
        call_command(
            "study", "export", study.name, "--format", fmt, stdout=out, stderr=io.StringIO()
        )
        exported[fmt] = out.getvalue()
    rows = [json.loads(line) for line in exported["jsonl"].splitlines()]
    assert rows and {row["rater_2_label"] for row in rows} == {"met", "not_met"}
    assert {row["rater_3"] for row in rows} == {""}
    validator = schema_validator("study-export")
    for row in rows:
        validator.validate(row)
    header = next(csv.reader(io.StringIO(exported["csv"])))
    assert header == list(rows[0])  # the CSV has the same columns, as text
