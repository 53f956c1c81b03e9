"""Every fault the fake endpoint can inject ends in the right verdicts or in explicit errors."""

import time

import pytest

from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun, Verdict
from tests.builders.llm import (
    answered_dataset,
    expected_states,
    first_response,
    judge_once,
    stored_states,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.3, hang_seconds=5) as server:
        yield server


@pytest.mark.parametrize(
    "faults",
    [
        ("rate_limit", "rate_limit"),
        ("server_error", "server_error"),
        ("hang",),
        ("disconnect",),
        ("bad_json",),
        ("malformed",),
        ("wrong_count",),
        ("refusal",),
        ("malformed", "wrong_count"),
    ],
)
def test_a_transient_fault_ends_in_the_correct_verdicts(fake, faults):
    dataset, model = answered_dataset(cases=3)
    fake.fail_prompt(first_response(model).text, *faults)
    run = judge_once(fake, model, dataset, timeout=0.5)
    assert stored_states(run) == expected_states(run)
    assert fake.count() == 3 + len(faults)
    assert run.errors == 0
    reply_faults = {"malformed", "wrong_count", "refusal"}
    assert run.parse_failures == sum(f in reply_faults for f in faults)
    assert run.retries == sum(f not in reply_faults for f in faults)


def test_retry_after_is_honoured(fake):
    dataset, model = answered_dataset(cases=1)
    fake.fail_prompt(first_response(model).text, "rate_limit")
    started = time.monotonic()
    run = judge_once(fake, model, dataset)
    assert time.monotonic() - started >= 0.3
    assert stored_states(run) == expected_states(run)


@pytest.mark.parametrize("fault", ["malformed", "wrong_count", "refusal"])
def test_a_reply_that_never_comes_right_is_stored_as_error_with_the_raw_reply(fake, fault):
    dataset, model = answered_dataset(cases=3)
    broken = first_response(model)
    fake.fail_prompt(broken.text, fault, fault, fault)
    run = judge_once(fake, model, dataset)
    errors = Verdict.objects.filter(run=run, response=broken)
    assert {v.state for v in errors} == {"error"} and errors.count() == 4
    assert all("no usable reply after 3 asks" in v.reasoning for v in errors)
    assert all(v.raw_reply for v in errors)
    others = Verdict.objects.filter(run=run).exclude(response=broken)
    expected = expected_states(run)
    assert {v.rubric_item_id: v.state for v in others} == {
        k: s for k, s in expected.items() if k in {v.rubric_item_id for v in others}
    }
    assert run.status == JudgeRun.Status.FINISHED and run.errors == 4
    assert run.parse_failures == 3 and fake.count() == 2 + 3


def test_a_request_that_fails_for_good_is_stored_as_error_with_the_reason(fake):
    dataset, model = answered_dataset(cases=2)
    broken = first_response(model)
    fake.fail_prompt(broken.text, *["server_error"] * 10)
    run = judge_once(fake, model, dataset, retry=RetryPolicy(max_attempts=3, backoff_base=0.01))
    states = Verdict.objects.filter(run=run, response=broken).values_list("state", "reasoning")
    assert {state for state, _ in states} == {"error"}
    assert all("request failed: HTTP 500" in reason for _, reason in states)
    assert run.request_failures == 1 and fake.count() == 1 + 3
    assert not Verdict.objects.filter(run=run, state="not_met", response=broken).exists()


def test_retry_wait_is_bounded_in_total(fake):
    dataset, model = answered_dataset(cases=1)
    fake.retry_after = 5
    fake.fail_prompt(first_response(model).text, *["rate_limit"] * 10)
    started = time.monotonic()
    run = judge_once(fake, model, dataset, retry=RetryPolicy(max_attempts=10, max_total_wait=2))
    assert time.monotonic() - started < 4
    assert set(stored_states(run).values()) == {"error"}
    assert "retry wait budget" in Verdict.objects.filter(run=run).first().reasoning


def test_endpoint_refusing_structured_output_falls_back_to_plain_text():
    with FakeLLM(structured=False) as fake:
        dataset, model = answered_dataset(cases=3)
        run = judge_once(fake, model, dataset, concurrency=1)
        assert stored_states(run) == expected_states(run)
        assert fake.count(fault="no_rf") == 1  # asked once, then remembered
        assert fake.count() == 4


def test_upstream_style_replies_are_read():
    with FakeLLM(style="upstream", structured=False) as fake:
        dataset, model = answered_dataset(cases=3)
        run = judge_once(fake, model, dataset, concurrency=1)
        assert stored_states(run) == expected_states(run)


def test_budget_stops_cleanly_and_the_run_resumes(fake):
    dataset, model = answered_dataset(cases=6)
    # Each request is ~600 input tokens and the first has 1500 reserved for output; at
    # $1000/M tokens a $3 cap allows the first request and stops before the total is reached.
    capped = {"price_in": 1000.0, "price_out": 1000.0, "concurrency": 1}
    run = judge_once(fake, model, dataset, max_cost=3.0, **capped)
    assert run.status == JudgeRun.Status.STOPPED and run.stop_reason == "budget"
    assert 0 < run.cost <= 3.0
    judged = Verdict.objects.filter(run=run).count()
    assert 0 < judged < 24
    assert set(stored_states(run).values()) <= {"met", "not_met"}
    resumed = judge_once(fake, model, dataset, **capped)
    assert resumed.pk == run.pk and resumed.status == JudgeRun.Status.FINISHED
    assert stored_states(resumed) == expected_states(resumed)
    assert fake.count() == 6
