"""`heartbench run` takes an upstream run_evaluation.py command line unchanged."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from benchmark.llm.fake_server import FakeLLM, fake_verdict
from benchmark.models import Case, JudgeRun, Response

pytestmark = pytest.mark.django_db


def upstream_file(path, *, cases: int = 3, difficulty: bool = True):
    """A small original dataset in the upstream JSONL format (`difficulty=False`: without the
    field, as the released question_hard.jsonl and question_normal.jsonl)."""
    with path.open("w", encoding="utf-8") as out:
        for n in range(cases):
            row = {
                "question_id": f"demo{n}",
                "dialogue": [
                    {"role": "A", "content": f"第{n}天了，我还是睡不着。"},
                    {"role": "B", "content": "听起来很难熬。"},
                    {"role": "A", "content": "嗯，我不知道该怎么办。"},
                ],
                "rubric": [
                    {"dimension": "温暖", "score": 3, "content": f"回应第{n}天的疲惫"},
                    {"dimension": "好奇心", "score": 2, "content": f"询问第{n}天的细节"},
                    {"dimension": "其他", "score": None, "content": f"第{n}例的危险建议"},
                ],
                "difficulty": "hard" if n % 2 else "normal",
                "primary_scene": "睡眠",
                "secondary_scene": "失眠",
            }
            if not difficulty:
                del row["difficulty"]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


@pytest.fixture
def fake():
    with FakeLLM() as server:
        yield server


def test_upstream_command_line_generates_judges_and_scores(fake, tmp_path):
    questions = upstream_file(tmp_path / "question_all.jsonl")
    answers = tmp_path / "data" / "temp_answers.jsonl"
    out = io.StringIO()
    base = fake.base_url.removesuffix("/v1")  # upstream appends /v1
    call_command(
        "run",
        "--base_url",
        base,
        "--api_key",
        "k",
        "--mode",
        "all",
        "--model",
        "my-model",
        "--input_file",
        str(questions),
        "--answer_file",
        str(answers),
        "--max_workers",
        "4",
        "--no-progress",
        stdout=out,
    )
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [r["question_id"] for r in rows] == ["demo0", "demo1", "demo2"]
    assert all("模拟回复" in r["response"] for r in rows)
    run = JudgeRun.objects.get()
    assert run.judge.model == "claude-sonnet-4-5-20250929" and run.status == "finished"
    states = dict(run.verdicts.values_list("rubric_item__text", "state"))
    assert states == {t: "met" if fake_verdict(t) else "not_met" for t in states}
    assert len(states) == 9 and "my-model" in out.getvalue()

    # The same command again: nothing is sent.
    sent = fake.count()
    call_command(
        "run",
        "--base_url",
        base,
        "--api_key",
        "k",
        "--model",
        "my-model",
        "--input_file",
        str(questions),
        "--answer_file",
        str(answers),
        "--no-progress",
        stdout=io.StringIO(),
    )
    assert fake.count() == sent


def upstream_run(fake, questions, tmp_path, *extra: str) -> str:
    """`heartbench run` as an upstream user types it, on `questions`; what it printed."""
    out = io.StringIO()
    call_command("run", "--base_url", fake.base_url.removesuffix("/v1"), "--api_key", "k",
                 "--model", "my-model", "--input_file", str(questions),
                 "--answer_file", str(tmp_path / "answers.jsonl"), "--no-progress", *extra,
                 stdout=out)  # fmt: skip
    return out.getvalue()


def test_a_split_file_without_difficulty_runs_as_its_name_says(fake, tmp_path):
    questions = upstream_file(tmp_path / "question_hard.jsonl", cases=2, difficulty=False)
    upstream_run(fake, questions, tmp_path)
    run = JudgeRun.objects.get()
    assert run.status == "finished" and run.verdicts.count() == 6
    assert set(Case.objects.values_list("difficulty", flat=True)) == {"hard"}


def test_mode_hard_prints_the_board_of_the_hard_cases(fake, tmp_path):
    questions = upstream_file(tmp_path / "question_all.jsonl", cases=4)
    assert "split hard" in upstream_run(fake, questions, tmp_path, "--mode", "hard")
    assert Response.objects.count() == 2  # the two hard cases of four


def test_score_only_imports_the_answer_file(fake, tmp_path):
    questions = upstream_file(tmp_path / "question_all.jsonl", cases=2)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": f"demo{n}", "response": f"回答{n}"}, ensure_ascii=False)
            + "\n"
            for n in range(2)
        ),
        encoding="utf-8",
    )
    call_command(
        "run",
        "--base_url",
        fake.base_url,
        "--score_only",
        "--answer_file",
        str(answers),
        "--input_file",
        str(questions),
        "--no-progress",
        stdout=io.StringIO(),
    )
    assert Response.objects.filter(model__name="answers:answers").count() == 2
    assert JudgeRun.objects.get().verdicts.count() == 6


def test_upstream_flag_rules_are_kept(fake, tmp_path):
    with pytest.raises(CommandError, match="Must specify --answer_file"):
        call_command("run", "--base_url", fake.base_url, "--score_only")
    with pytest.raises(CommandError, match="Cannot use --generate_only and --score_only"):
        call_command(
            "run",
            "--base_url",
            fake.base_url,
            "--score_only",
            "--generate_only",
            "--answer_file",
            str(tmp_path / "a.jsonl"),
        )
