"""`heartbench import-answers`: upstream answer files as one model's responses."""

import json

import pytest
from django.core.management.base import CommandError

from benchmark import models
from tests.builders.importing import BASE_DATASET, CORPUS, assert_refused, run, table_counts

BASE_ANSWERS = CORPUS / "base-answers.jsonl"

ANSWERS_CORPUS = {
    "answers-unknown-id.jsonl": (2, 'unknown question_id "m-99": not a case of base-dataset v1'),
    "answers-duplicate-id.jsonl": (3, 'duplicate question_id "m-01" (first on line 1)'),
    "answers-non-string-response.jsonl": (2, "response: expected a string or null, got a number"),
    "answers-missing-response.jsonl": (1, 'missing required field "response"'),
    "answers-missing-question-id.jsonl": (2, 'missing required field "question_id"'),
}

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset() -> models.Dataset:
    run("import_dataset", str(BASE_DATASET))
    return models.Dataset.objects.get()


def test_answers_import_skips_failed_generations(dataset):
    output = run("import_answers", str(BASE_ANSWERS), "--model", "m")
    assert "2 answers imported, 0 already there, 1 missing (failed generation) of 3 rows" in output
    model = models.ModelUnderTest.objects.get(name="m")
    answers = dict(model.responses.values_list("case__question_id", "text"))
    assert set(answers) == {"m-01", "m-02"}
    assert answers["m-02"] == "听起来紧张让你很难发挥。我们可以一起试一个呼吸练习。"
    assert model.responses.filter(source="import").count() == 2
    event = models.AuditEvent.objects.get(action="answers.import")
    assert event.data["created"] == 2 and event.data["missing"] == 1


def test_reimporting_the_same_answers_is_a_no_op(dataset):
    run("import_answers", str(BASE_ANSWERS), "--model", "m")
    before = table_counts()
    output = run("import_answers", str(BASE_ANSWERS), "--model", "m")
    assert "0 answers imported, 2 already there" in output
    assert table_counts() == before


def test_a_different_answer_is_never_overwritten(dataset, tmp_path):
    run("import_answers", str(BASE_ANSWERS), "--model", "m")
    changed = tmp_path / "answers.jsonl"
    rows = [json.loads(line) for line in BASE_ANSWERS.read_text(encoding="utf-8").splitlines()]
    rows[1]["response"] = "A new answer."
    changed.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert_refused("import_answers", changed, 2, "already has a different answer", "--model", "m")
    assert models.Response.objects.filter(text="A new answer.").count() == 0
    # Under a new model name the same file is fine.
    assert "2 answers imported" in run("import_answers", str(changed), "--model", "m2")


@pytest.mark.parametrize("name", sorted(ANSWERS_CORPUS))
def test_malformed_answers_are_refused_whole(dataset, name):
    line, reason = ANSWERS_CORPUS[name]
    assert_refused("import_answers", CORPUS / name, line, reason, "--model", "m")
    assert not models.ModelUnderTest.objects.exists()


def test_the_dataset_can_be_chosen_by_name_and_version(dataset, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(
        BASE_DATASET.read_text(encoding="utf-8").replace('"m-01"', '"n-01"'), encoding="utf-8"
    )
    run("import_dataset", str(other))
    # Two datasets: the newest is not taken for the one meant; the user is asked to name it ...
    before = table_counts()
    with pytest.raises(CommandError, match=r"2 datasets \(base-dataset, other\): say which"):
        run("import_answers", str(BASE_ANSWERS), "--model", "m")
    assert table_counts() == before
    # ... and naming the base dataset, with or without its version, accepts it.
    run("import_answers", str(BASE_ANSWERS), "--model", "m", "--dataset", "base-dataset:v1")
    run("import_answers", str(BASE_ANSWERS), "--model", "m2", "--dataset", "base-dataset")
    assert models.Response.objects.filter(case__dataset=dataset).count() == 4


def test_unknown_dataset_or_none_at_all_is_a_clear_error():
    with pytest.raises(CommandError, match="no dataset imported yet"):
        run("import_answers", str(BASE_ANSWERS), "--model", "m")
    run("import_dataset", str(BASE_DATASET))
    with pytest.raises(CommandError, match="no dataset named 'base-dataset:v2'"):
        run("import_answers", str(BASE_ANSWERS), "--model", "m", "--dataset", "base-dataset:v2")
