"""A judge endpoint down for a while: the run pauses and resumes without spending retries.

Each request may try only three times within half a second of back-off, while the outage lasts
longer than that; only the circuit breaker (benchmark/llm/breaker.py) lets the run through with
every verdict right. The same outage with the breaker out of reach is the control: error
verdicts, so these tests can fail.
"""

import logging
import threading
import time

import pytest

from benchmark.llm.breaker import BreakerPolicy
from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun, Verdict
from tests.builders.llm import answered_dataset, expected_states, judge_once, stored_states

pytestmark = pytest.mark.django_db

QUICK_PROBES = BreakerPolicy(threshold=3, probe_base=0.02, probe_cap=0.1, max_outage=60)
NO_BREAKER = BreakerPolicy(threshold=10**9)


def retry(breaker: BreakerPolicy) -> RetryPolicy:
    return RetryPolicy(max_attempts=3, max_total_wait=0.5, backoff_base=0.01, breaker=breaker)


def switched_off_after_first_answer(first: FakeLLM, *, back_after: float | None) -> list:
    """Stop `first` once it has answered a request; start it again on the same port
    `back_after` seconds later (never when None). The started servers, to stop."""
    port = int(first.base_url.rsplit(":", 1)[1].split("/")[0])
    back: list[FakeLLM] = []

    def cycle() -> None:
        while not first.stats()["by_status"].get("200"):
            time.sleep(0.005)
        # A kept-alive connection outlives the listening socket: drop those too.
        first.queue(*["disconnect"] * 100)
        first.stop()
        if back_after is not None:
            time.sleep(back_after)
            back.append(FakeLLM(port=port).start())

    switch = threading.Thread(target=cycle, daemon=True)
    switch.start()
    back.append(switch)
    return back


def test_an_endpoint_switched_off_mid_run_pauses_the_run_until_it_is_back(caplog):
    caplog.set_level(logging.WARNING, logger="benchmark.llm.breaker")
    dataset, model = answered_dataset(cases=4)
    first = FakeLLM(latency=0.1).start()
    # Answers once, then goes away; back after a while, well past the retry budget.
    started = switched_off_after_first_answer(first, back_after=2.0)
    quick = BreakerPolicy(threshold=3, probe_base=0.02, probe_cap=0.1, max_outage=60,
                          notice_every=0.5)  # fmt: skip
    try:
        run = judge_once(first, model, dataset, concurrency=1, retry=retry(quick))
    finally:
        started[0].join()
        for server in started[1:]:
            server.stop()
    assert run.status == JudgeRun.Status.FINISHED
    assert stored_states(run) == expected_states(run)
    assert (run.errors, run.request_failures) == (0, 0)
    # Once back, one request per answer still missing: nothing was given up.
    assert first.count(fault="ok") + started[1].count() == 4
    messages = [r.getMessage() for r in caplog.records]
    assert any("looks down" in m for m in messages)
    assert any("still down after" in m for m in messages)  # said again while it waits
    assert any("answers again" in m for m in messages)


def test_an_endpoint_down_from_the_start_fails_the_run_at_once_naming_the_url():
    dataset, model = answered_dataset(cases=4)
    with FakeLLM() as gone:
        url = gone.base_url
    began = time.monotonic()
    run = judge_once(_at(url), model, dataset, retry=retry(QUICK_PROBES))
    assert time.monotonic() - began < 5
    assert run.status == JudgeRun.Status.FAILED and run.stop_reason == "refused"
    assert f"cannot reach {url}/chat/completions" in run.error
    assert not Verdict.objects.filter(run=run).exists()  # nothing stored as an error


def test_an_endpoint_answering_5xx_to_everything_pauses_without_spending_attempts():
    dataset, model = answered_dataset(cases=4)
    with FakeLLM() as fake:
        fake.queue(*["server_error"] * 40)
        run = judge_once(fake, model, dataset, concurrency=2, retry=retry(QUICK_PROBES))
        assert stored_states(run) == expected_states(run)
        assert (run.errors, run.request_failures) == (0, 0)
        # Every fault met exactly one request, then each answer was asked for once.
        assert fake.count(fault="server_error") == 40 and fake.count(fault="ok") == 4


def test_without_the_breaker_the_same_outage_ends_in_error_verdicts():
    dataset, model = answered_dataset(cases=4)
    with FakeLLM() as fake:
        fake.queue(*["server_error"] * 40)
        run = judge_once(fake, model, dataset, concurrency=2, retry=retry(NO_BREAKER))
        assert set(stored_states(run).values()) == {"error"}
        assert run.request_failures == 4 and fake.count() == 4 * 3


def test_one_prompt_failing_for_good_is_not_an_outage():
    dataset, model = answered_dataset(cases=1)
    with FakeLLM() as fake:
        fake.queue(*["server_error"] * 20)
        policy = RetryPolicy(max_attempts=6, backoff_base=0.01, breaker=QUICK_PROBES)
        run = judge_once(fake, model, dataset, retry=policy)
        # Six attempts and an error verdict, not an endless pause on one bad request.
        assert fake.count() == 6 and set(stored_states(run).values()) == {"error"}


def test_an_endpoint_down_for_longer_than_max_outage_gives_up_with_the_reason():
    dataset, model = answered_dataset(cases=3)
    first = FakeLLM(latency=0.1).start()
    started = switched_off_after_first_answer(first, back_after=None)
    short = BreakerPolicy(threshold=2, probe_base=0.02, probe_cap=0.05, max_outage=0.5)
    run = judge_once(first, model, dataset, concurrency=1, retry=retry(short))
    started[0].join()
    states = stored_states(run)
    reasons = set(
        Verdict.objects.filter(run=run, state="error").values_list("reasoning", flat=True)
    )
    assert "error" in set(states.values()) and run.status == JudgeRun.Status.FINISHED
    assert reasons and all("endpoint unreachable" in r for r in reasons)


class _at:
    """What judge_once needs of a fake server, for an address where none is listening."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
