"""`heartbench import-verdicts`: upstream scored files as one finished judge run."""

import json
from pathlib import Path

import pytest

from benchmark import models
from tests.builders.importing import BASE_DATASET, CORPUS, assert_refused, run, table_counts

BASE_ANSWERS = CORPUS / "base-answers.jsonl"
BASE_VERDICTS = CORPUS / "base-verdicts.jsonl"

VERDICTS_CORPUS = {
    "verdicts-wrong-length.jsonl": (2, "2 verdicts for a rubric of 4 criteria"),
    "verdicts-non-binary.jsonl": (1, "score_detail[1]: expected 0 or 1, got 2"),
    "verdicts-string-values.jsonl": (1, 'score_detail[0]: expected 0 or 1, got "1"'),
    "verdicts-unknown-id.jsonl": (3, 'unknown question_id "x-03"'),
    "verdicts-unparsable-string.jsonl": (1, 'the string is not a list like "[1, 0, 1]"'),
    "verdicts-no-answer.jsonl": (1, 'model "m" has no answer to "m-03"'),
    "verdicts-different-answer.jsonl": (1, 'model "m" already has a different answer to "m-01"'),
}

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered() -> models.ModelUnderTest:
    run("import_dataset", str(BASE_DATASET))
    run("import_answers", str(BASE_ANSWERS), "--model", "m")
    return models.ModelUnderTest.objects.get(name="m")


def states(question_id: str, run_: models.JudgeRun | None = None) -> list[str]:
    verdicts = models.Verdict.objects.filter(rubric_item__case__question_id=question_id)
    if run_ is not None:
        verdicts = verdicts.filter(run=run_)
    return list(verdicts.order_by("rubric_item__position").values_list("state", flat=True))


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


def test_scored_file_becomes_one_finished_run(answered):
    output = run("import_verdicts", str(BASE_VERDICTS), "--model", "m")
    assert "2 cases scored, 0 judge errors, 1 unanswered, 7 verdicts" in output
    judge_run = models.JudgeRun.objects.get()
    assert (judge_run.judge.name, judge_run.source, judge_run.status) == (
        "imported",
        "import",
        "finished",
    )
    assert judge_run.finished_at is not None and len(judge_run.content_hash) == 64
    # "[1, 0, 0]" as the upstream scorer writes it, and a plain `detail` list.
    assert states("m-01") == ["met", "not_met", "not_met"]
    assert states("m-02") == ["not_met", "not_met", "met", "not_met"]
    # m-03's answer failed upstream: nothing was judged, nothing stored (missing coverage).
    assert states("m-03") == []
    first = models.Verdict.objects.filter(rubric_item__case__question_id="m-01").first()
    assert first.reasoning == "warm, no question about feelings"
    assert first.response.model == answered
    second = models.Verdict.objects.filter(rubric_item__case__question_id="m-02").first()
    assert second.raw_reply.startswith("{'reason'")
    event = models.AuditEvent.objects.get(action="verdicts.import")
    assert event.object_id == str(judge_run.pk) and event.data["verdicts"] == 7


def test_same_content_is_a_no_op_and_another_judge_is_a_new_run(answered):
    run("import_verdicts", str(BASE_VERDICTS), "--model", "m")
    before = table_counts()
    assert "nothing changed" in run("import_verdicts", str(BASE_VERDICTS), "--model", "m")
    assert table_counts() == before
    run("import_verdicts", str(BASE_VERDICTS), "--model", "m", "--judge", "second-judge")
    assert models.Judge.objects.filter(name="second-judge").exists()
    assert models.JudgeRun.objects.count() == 2
    assert models.Verdict.objects.count() == 14


def test_failed_judge_call_stores_errors_never_not_met(answered, tmp_path):
    path = write_rows(
        tmp_path / "scored.jsonl",
        [
            {"question_id": "m-01", "score_detail": None, "api_response": "Error: 503"},
            {"question_id": "m-02", "score_detail": "[]"},  # upstream: the reply did not parse
        ],
    )
    output = run("import_verdicts", str(path), "--model", "m")
    assert "0 cases scored, 2 judge errors" in output
    assert states("m-01") == ["error"] * 3
    assert states("m-02") == ["error"] * 4


def test_wrong_length_needs_lenient_which_pads_and_truncates_like_upstream(answered, tmp_path):
    path = write_rows(
        tmp_path / "scored.jsonl",
        [
            {"question_id": "m-01", "score_detail": "[1]"},
            {"question_id": "m-02", "score_detail": "[1, 1, 0, 0, 1, 1]"},
        ],
    )
    assert_refused("import_verdicts", path, 1, "1 verdicts for a rubric of 3", "--model", "m")
    output = run("import_verdicts", str(path), "--model", "m", "--lenient")
    assert "--lenient padded or truncated 2 verdict lists" in output
    assert states("m-01") == ["met", "not_met", "not_met"]
    assert states("m-02") == ["met", "met", "not_met", "not_met"]
    assert models.JudgeRun.objects.get().import_summary["lenient"] is True


def test_a_row_carrying_its_answer_creates_the_response(tmp_path):
    run("import_dataset", str(BASE_DATASET))
    path = write_rows(
        tmp_path / "scored.jsonl",
        [
            {"question_id": "m-01", "response": "I hear you.", "score_detail": "[True, False, 0]"},
            {"question_id": "m-02", "response": None, "score_detail": None},
        ],
    )
    output = run("import_verdicts", str(path), "--model", "new-model")
    assert "1 answers taken from the file" in output
    response = models.Response.objects.get()
    assert (response.model.name, response.text) == ("new-model", "I hear you.")
    assert states("m-01") == ["met", "not_met", "not_met"]


@pytest.mark.parametrize("name", sorted(VERDICTS_CORPUS))
def test_malformed_verdicts_are_refused_whole(answered, name):
    line, reason = VERDICTS_CORPUS[name]
    assert_refused("import_verdicts", CORPUS / name, line, reason, "--model", "m")
