"""The usual settings of `judge` and `generate`, tried as a new user would, against the local
fake endpoint: OPENAI_BASE_URL, sampling settings, subsets, retrying errors, the budget's
advice, and a run with other options being another run."""

import io

import pytest
from django.core.management import CommandError, call_command

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import GenerationRun, Judge, JudgeRun, Response, Verdict
from tests.builders.datasets import DatasetFactory, case_with_rubric
from tests.builders.llm import (
    QUICK,
    answered_dataset,
    expected_states,
    first_response,
    judge,
    stored_states,
)

pytestmark = pytest.mark.django_db
DEAD = "http://127.0.0.1:9/v1"  # nothing listens there


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def judge_error(model, *args: str) -> CommandError:
    with pytest.raises(CommandError) as caught:
        judge(model, *args)
    return caught.value


# ---- OPENAI_BASE_URL -------------------------------------------------------------------------


def test_openai_base_url_is_used_when_no_base_url_is_given(fake, monkeypatch):
    _dataset, model = answered_dataset(cases=2)
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    judge(model)
    assert fake.count() == 2
    assert JudgeRun.objects.get().status == JudgeRun.Status.FINISHED


def test_openai_base_url_comes_after_the_flag_and_before_the_judges_endpoint(fake, monkeypatch):
    _dataset, model = answered_dataset(cases=2)
    Judge.objects.create(name="fake-judge", model="fake-judge", base_url=DEAD,
                         prompt_template_version="heartbench-judge-zh-v1")  # fmt: skip
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    judge(model)  # the environment wins over the judge's stored endpoint
    assert fake.count() == 2
    monkeypatch.setenv("OPENAI_BASE_URL", DEAD)
    judge(model, "--base-url", fake.base_url, "--force")  # the flag wins over the environment
    assert fake.count() == 4


# ---- temperature, max tokens, seed ------------------------------------------------------------


def test_sampling_settings_are_sent_recorded_and_keep_runs_and_cache_apart(fake):
    _dataset, model = answered_dataset(cases=2)
    url = ["--base-url", fake.base_url]
    judge(model, *url, "--temperature", "0.2", "--max-tokens", "900", "--seed", "7")
    sent = [r.parameters for r in fake.requests]
    assert all(
        p["temperature"] == 0.2 and p["max_tokens"] == 900 and p["seed"] == 7 for p in sent
    ), sent
    first = JudgeRun.objects.get()
    assert (first.temperature, first.max_tokens, first.seed) == (0.2, 900, 7)

    # Another temperature is another run, and its replies do not come from the first's cache.
    judge(model, *url, "--temperature", "0.7", "--max-tokens", "900", "--seed", "7")
    assert fake.count() == 4 and JudgeRun.objects.count() == 2
    assert fake.requests[-1].parameters["temperature"] == 0.7
    # The same settings again: the same, finished run.
    text = judge(model, *url, "--temperature", "0.2", "--max-tokens", "900", "--seed", "7")
    assert f"run {first.pk}" in text and "nothing sent" in text and fake.count() == 4


def test_generate_sends_and_records_the_sampling_settings(fake):
    dataset = DatasetFactory()
    case_with_rubric(dataset=dataset)
    call_command("generate", "--model", "g", "--base-url", fake.base_url, "--temperature", "0",
                 "--seed", "3", *QUICK, stdout=io.StringIO())  # fmt: skip
    assert fake.requests[0].parameters["temperature"] == 0.0
    assert fake.requests[0].parameters["seed"] == 3
    run = GenerationRun.objects.get()
    assert (run.temperature, run.seed, run.max_tokens) == (0.0, 3, None)


# ---- a subset -------------------------------------------------------------------------------


def test_limit_and_sample_id_judge_a_subset_recorded_on_the_run(fake):
    dataset, model = answered_dataset(cases=5)
    cases = list(dataset.cases.order_by("position"))
    judge(model, "--base-url", fake.base_url, "--limit", "2")
    run = JudgeRun.objects.get()
    assert run.limit == 2 and run.total == 8 and fake.count() == 2
    assert set(Verdict.objects.filter(run=run).values_list("response__case", flat=True)) == {
        cases[0].pk,
        cases[1].pk,
    }
    picked = f"{cases[4].question_id},{cases[2].question_id}"
    judge(model, "--base-url", fake.base_url, "--sample-id", picked)
    run = JudgeRun.objects.latest("id")
    assert run.sample_ids == ",".join(sorted([cases[2].question_id, cases[4].question_id]))
    assert fake.count() == 4 and run.total == 8


def test_an_unknown_sample_id_is_refused_and_nothing_is_sent_or_written(fake):
    dataset, model = answered_dataset(cases=2)
    known = dataset.cases.first().question_id
    error = judge_error(model, "--base-url", fake.base_url, "--sample-id", f"{known},nope,zz")
    assert error.returncode == 2 and "unknown" in str(error) and "nope, zz" in str(error)
    assert fake.count() == 0 and not JudgeRun.objects.exists() and not Judge.objects.exists()


def test_generate_limit_answers_only_the_first_cases(fake):
    dataset = DatasetFactory()
    cases = [
        case_with_rubric(dataset=dataset, dialogue=[{"role": "A", "content": f"第{i}个"}])
        for i in range(3)
    ]
    call_command("generate", "--model", "g", "--base-url", fake.base_url, "--limit", "1",
                 *QUICK, stdout=io.StringIO())  # fmt: skip
    assert list(Response.objects.values_list("case", flat=True)) == [cases[0].pk]
    assert GenerationRun.objects.get().limit == 1
    with pytest.raises(CommandError) as caught:
        call_command("generate", "--model", "g", "--base-url", fake.base_url, "--sample-id",
                     "missing", *QUICK, stdout=io.StringIO())  # fmt: skip
    assert caught.value.returncode == 2 and "missing" in str(caught.value)
    assert fake.count() == 1 and GenerationRun.objects.count() == 1


# ---- retrying errors --------------------------------------------------------------------------


def test_retry_errors_sends_only_what_ended_in_error_as_a_new_run(fake):
    _dataset, model = answered_dataset(cases=4)
    fake.fail_prompt(first_response(model).text, "malformed", "malformed", "malformed")
    error = judge_error(model, "--base-url", fake.base_url, "--temperature", "0.3")
    assert error.returncode == 1 and "4 criteria ended in error" in str(error)
    assert "--retry-errors" in str(error)
    failed = JudgeRun.objects.get()
    asked = fake.count()

    text = judge(model, "--base-url", fake.base_url, "--temperature", "0.3", "--retry-errors")
    retry = JudgeRun.objects.latest("id")
    assert retry.retry_of == failed and retry.temperature == 0.3
    assert fake.count() == asked + 1 and retry.cached == 3
    assert stored_states(retry) == expected_states(retry)
    assert f"judge run {retry.pk}: finished" in text

    # Nothing left to retry is done, not a configuration error (exit 0).
    again = judge(model, "--base-url", fake.base_url, "--temperature", "0.3", "--retry-errors")
    assert f"judge run {retry.pk} has no errors: nothing to retry" in again
    assert fake.count() == asked + 1 and JudgeRun.objects.count() == 2


def test_generate_retry_errors_asks_again_only_for_the_failed_cases(fake):
    dataset = DatasetFactory()
    for i in range(3):
        case_with_rubric(dataset=dataset, dialogue=[{"role": "A", "content": f"第{i}个"}])
    fake.fail_prompt("第1个", *["refusal"] * 3)
    args = ["--model", "g", "--base-url", fake.base_url, *QUICK]
    with pytest.raises(CommandError) as caught:
        call_command("generate", *args, stdout=io.StringIO())
    assert "--retry-errors" in str(caught.value)
    asked = fake.count()
    call_command("generate", *args, "--retry-errors", stdout=io.StringIO())
    assert fake.count() == asked + 1 and Response.objects.count() == 3
    assert GenerationRun.objects.count() == 2
    out = io.StringIO()
    call_command("generate", *args, "--retry-errors", stdout=out)
    newest = GenerationRun.objects.latest("id")
    assert f"generation run {newest.pk} has no errors: nothing to retry" in out.getvalue()
    assert GenerationRun.objects.count() == 2 and fake.count() == asked + 1


def test_generate_with_every_case_answered_says_so_and_makes_no_run(fake):
    dataset = DatasetFactory()
    for i in range(2):
        case_with_rubric(dataset=dataset, dialogue=[{"role": "A", "content": f"第{i}个"}])
    args = ["--model", "g", "--base-url", fake.base_url, *QUICK]
    call_command("generate", *args, stdout=io.StringIO())
    sent = fake.count()
    out = io.StringIO()
    call_command("generate", *args, stdout=out)
    assert "already finished and every case has an answer; nothing sent" in out.getvalue()
    assert GenerationRun.objects.count() == 1 and fake.count() == sent


# ---- the budget -------------------------------------------------------------------------------

PRICED = ["--price-in", "1000", "--price-out", "1000", "--concurrency", "1", "--max-tokens", "100"]


@pytest.mark.parametrize("forced", [False, True])
def test_a_budget_stop_says_what_continues_the_run_and_that_works(fake, forced):
    _dataset, model = answered_dataset(cases=6)
    url = ["--base-url", fake.base_url, *PRICED]
    if forced:  # a finished run exists; the user asks for a fresh one under a budget
        judge(model, *url)
    before = fake.count()
    force = ["--force"] if forced else []
    # ~600 input and 100 output tokens at $1000/M: $0.7 a request, so $2 pays for two.
    error = judge_error(model, *url, *force, "--max-cost", "2")
    assert error.returncode == 3
    stopped = JudgeRun.objects.latest("id")
    assert stopped.status == JudgeRun.Status.STOPPED and stopped.stop_reason == "budget"
    message = str(error)
    assert "with --max-cost" in message and f"run {stopped.pk}" in message
    assert ("without --force" in message) is forced
    paid = fake.count() - before
    assert 0 < paid < 6

    # What the message says: the same command (less --force) with a higher budget.
    judge(model, *url, "--max-cost", "20")
    resumed = JudgeRun.objects.latest("id")
    assert resumed.pk == stopped.pk and resumed.status == JudgeRun.Status.FINISHED
    assert stored_states(resumed) == expected_states(resumed)
    # Nothing is paid twice: a forced run's remainder comes from the first run's cache.
    assert fake.count() - before == (paid if forced else 6)


def test_a_budget_is_spent_nearly_whole_even_with_many_requests_in_flight(fake):
    # Before the first reply each request out reserves a guess of 1,500 output tokens; the
    # run waits for the replies to settle the guesses instead of stopping on them.
    _dataset, model = answered_dataset(cases=12)
    budget = 5.0
    priced = ["--price-in", "1000", "--price-out", "1000", "--concurrency", "16"]
    error = judge_error(model, "--base-url", fake.base_url, *priced, "--max-cost", str(budget))
    assert error.returncode == 3
    run = JudgeRun.objects.get()
    per_request = run.cost / run.calls
    assert run.cost <= budget and budget - run.cost < 2 * per_request, (run.cost, per_request)
    left = run.total - run.done
    assert f"spent ${run.cost:.4f} of ${budget:.2f}; {left} criteria left" in str(error)
    finish = float(str(error).split("--max-cost ")[-1].split()[0])
    judge(model, "--base-url", fake.base_url, *priced, "--max-cost", str(finish))
    assert JudgeRun.objects.get().status == JudgeRun.Status.FINISHED  # the advice was enough


# ---- a run with other options is another run -------------------------------------------------


def test_item_granularity_after_a_finished_response_run_starts_its_own_run(fake):
    _dataset, model = answered_dataset(cases=2)
    judge(model, "--base-url", fake.base_url)
    text = judge(model, "--base-url", fake.base_url, "--granularity", "item")
    assert "nothing sent" not in text
    runs = list(JudgeRun.objects.order_by("id"))
    assert [r.granularity for r in runs] == ["response", "item"]
    assert fake.count() == 2 + 8
    assert "nothing sent" in judge(model, "--base-url", fake.base_url, "--granularity", "item")
