"""A judge endpoint down for a while: the run pauses and resumes without spending retries.

Each request may try only three times within half a second of back-off, while the outage lasts
longer than that; only the circuit breaker (benchmark/llm/breaker.py) lets the run through with
every verdict right. The same outage with the breaker out of reach is the control: error
verdicts, so these tests can fail.
"""

import logging
import threading

import pytest

from benchmark.llm.breaker import BreakerPolicy
from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun, Verdict
from tests.benchmark.llm.factories import answered_dataset, expected_states, stored_states
from tests.benchmark.test_judge_engine import judge_once

pytestmark = pytest.mark.django_db

QUICK_PROBES = BreakerPolicy(threshold=3, probe_base=0.02, probe_cap=0.1, max_outage=60)
NO_BREAKER = BreakerPolicy(threshold=10**9)


def retry(breaker: BreakerPolicy) -> RetryPolicy:
    return RetryPolicy(max_attempts=3, max_total_wait=0.5, backoff_base=0.01, breaker=breaker)


def test_a_switched_off_endpoint_pauses_the_run_until_it_is_back(caplog):
    caplog.set_level(logging.WARNING, logger="benchmark.llm.breaker")
    dataset, model = answered_dataset(cases=4)
    with FakeLLM() as first:
        port = first.base_url.rsplit(":", 1)[1].split("/")[0]
        url = first.base_url
    # Down from the start; back on the same port after a while, well past the retry budget.
    back: list[FakeLLM] = []
    restart = threading.Timer(2.0, lambda: back.append(FakeLLM(port=int(port)).start()))
    restart.start()
    try:
        run = judge_once(_at(url), model, dataset, retry=retry(QUICK_PROBES))
    finally:
        restart.join()
        for server in back:
            server.stop()
    assert run.status == JudgeRun.Status.FINISHED
    assert stored_states(run) == expected_states(run)
    assert (run.errors, run.request_failures) == (0, 0)
    assert back[0].count() == 4  # once back, one request per answer: nothing was given up
    messages = [r.getMessage() for r in caplog.records]
    assert any("looks down" in m for m in messages)
    assert any("answers again" in m for m in messages)


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
    dataset, model = answered_dataset(cases=2)
    with FakeLLM() as gone:
        url = gone.base_url
    short = BreakerPolicy(threshold=2, probe_base=0.02, probe_cap=0.05, max_outage=0.5)
    run = judge_once(_at(url), model, dataset, retry=retry(short))
    reasons = set(Verdict.objects.filter(run=run).values_list("reasoning", flat=True))
    assert set(stored_states(run).values()) == {"error"}
    assert reasons and all("endpoint unreachable" in r for r in reasons)


class _at:
    """What judge_once needs of a fake server, for an address where none is listening."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
