"""Answer generation through the engine, and the `judge`/`generate` commands end to end."""

import io

import pytest
from django.core.management import CommandError, call_command

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import GenerationRun, JudgeRun, Response
from tests.builders.datasets import DatasetFactory, case_with_rubric
from tests.builders.llm import answered_dataset, expected_states, stored_states

pytestmark = pytest.mark.django_db
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5"]


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def test_generate_answers_every_case_once_and_resumes(fake):
    dataset = DatasetFactory()
    [
        case_with_rubric(
            dataset=dataset, difficulty=d, dialogue=[{"role": "A", "content": f"第{i}个"}]
        )
        for i, d in enumerate(("normal", "hard", "hard"))
    ]
    fake.fail_prompt("第1个", "server_error")
    out = io.StringIO()
    args = ["--model", "gen-model", "--base-url", fake.base_url, "--dataset", dataset.name]
    call_command("generate", *args, "--mode", "hard", *QUICK, stdout=out)
    answers = Response.objects.filter(model__name="gen-model")
    assert answers.count() == 2 and {a.case.difficulty for a in answers} == {"hard"}
    assert all("模拟回复" in a.text and a.source == "generated" for a in answers)
    run = GenerationRun.objects.get()
    assert run.status == "finished" and run.retries == 1 and run.done == 2
    sent = fake.count()
    call_command("generate", *args, "--mode", "all", *QUICK, stdout=out)
    assert Response.objects.filter(model__name="gen-model").count() == 3
    assert fake.count() == sent + 1


def test_generation_failure_is_reported_and_stores_no_answer(fake):
    dataset = DatasetFactory()
    case = case_with_rubric(dataset=dataset)
    fake.fail_prompt(case.dialogue[0]["content"], *["refusal"] * 3)
    with pytest.raises(CommandError) as caught:
        call_command(
            "generate", "--model", "m", "--base-url", fake.base_url, *QUICK, stdout=io.StringIO()
        )
    assert caught.value.returncode == 1 and "1 cases ended in error" in str(caught.value)
    assert not Response.objects.exists()
    assert "refused" in GenerationRun.objects.get().failures[0]["reason"]


def test_judge_command_summary_and_exit_status(fake):
    _dataset, model = answered_dataset(cases=3)
    out = io.StringIO()
    call_command(
        "judge",
        "--model",
        model.name,
        "--judge-model",
        "fake-judge",
        "--base-url",
        fake.base_url,
        *QUICK,
        stdout=out,
    )
    run = JudgeRun.objects.get()
    assert stored_states(run) == expected_states(run)
    text = out.getvalue()
    assert f"judge run {run.pk}: finished" in text and "done 12/12, errors 0" in text
    assert "calls 3" in text and "parse failures 0" in text


def test_judge_command_rejects_a_template_with_an_unknown_variable(fake, tmp_path):
    _, model = answered_dataset(cases=1)
    template = tmp_path / "mine.txt"
    template.write_text("对话：$dialogue\n回复：$response\n标准：$rubrics\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command(
            "judge",
            "--model",
            model.name,
            "--judge-model",
            "j",
            "--base-url",
            fake.base_url,
            "--prompt-template",
            str(template),
            *QUICK,
        )
    assert "mine.txt:3: unknown variable $rubrics" in str(caught.value)
    assert fake.count() == 0 and not JudgeRun.objects.exists()


def test_custom_template_gets_its_own_version_and_judge(fake, tmp_path):
    _, model = answered_dataset(cases=2)
    template = tmp_path / "mine.txt"
    template.write_text(
        "## version: my-judge-v2\n$dialogue\n$response\n共$rubric_count条\n$rubric\n",
        encoding="utf-8",
    )
    fake.style = "upstream"
    common = ["--model", model.name, "--judge-model", "j", "--base-url", fake.base_url, *QUICK]
    call_command(
        "judge",
        *common,
        "--judge",
        "mine",
        "--prompt-template",
        str(template),
        stdout=io.StringIO(),
    )
    run = JudgeRun.objects.get()
    assert run.judge.prompt_template_version == "my-judge-v2"
    assert stored_states(run) == expected_states(run)
    with pytest.raises(CommandError, match="uses prompt template 'my-judge-v2'"):
        call_command("judge", *common, "--judge", "mine", stdout=io.StringIO())


def test_api_key_is_sent_but_never_stored(fake, monkeypatch):
    monkeypatch.setenv("HEARTBENCH_API_KEY", "sk-secret-value")
    _dataset, model = answered_dataset(cases=1)
    call_command(
        "judge",
        "--model",
        model.name,
        "--judge-model",
        "j",
        "--base-url",
        fake.base_url,
        *QUICK,
        stdout=io.StringIO(),
    )
    run = JudgeRun.objects.select_related("judge").get()
    assert fake.last_authorization == "Bearer sk-secret-value"
    stored = repr(JudgeRun.objects.filter(pk=run.pk).values().get())
    stored += repr(run.judge.parameters) + run.judge.base_url
    assert "sk-secret" not in stored
