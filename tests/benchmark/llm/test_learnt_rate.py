"""Without a declared limit the client learns the endpoint's rate from its 429s; a lone failure
is retried at once, anything more backs off."""

import asyncio
import time

import httpx
import pytest

from benchmark.llm.client import ChatClient, Endpoint, RequestFailed, RetryPolicy
from benchmark.llm.fake_server import FakeLLM
from benchmark.llm.ratelimit import LearntLimiter, LocalLimiter, SendWindow, limiter_build
from benchmark.llm.ratelimit_math import (
    LEARN_GROWTH,
    LEARN_MAX_CUT,
    LEARN_PROBE_AFTER,
    LEARN_WINDOW,
    Pace,
    pace_limit,
    pace_throttled,
)
from tests.builders.llm_client import ask_many


def test_the_first_429_sets_the_limit_to_what_the_endpoint_took_in_the_window():
    pace = pace_throttled(Pace(), taken=50, now=10.0)
    assert pace == Pace(limit=50, since=10.0)


def test_the_429s_of_one_window_cut_once_and_a_429_never_raises_the_limit():
    pace = pace_throttled(Pace(), taken=50, now=10.0)
    assert pace_throttled(pace, taken=20, now=10.0 + LEARN_WINDOW / 2) == pace
    later = 10.0 + LEARN_WINDOW
    assert pace_throttled(pace, taken=80, now=later).limit == 50  # not the 80 counted meanwhile
    assert pace_throttled(pace, taken=48, now=later).limit == 48
    # A refusal while far fewer went out cuts by LEARN_MAX_CUT; again a window later, again.
    cut = pace_throttled(pace, taken=20, now=later)
    assert cut.limit == pytest.approx(50 * (1 - LEARN_MAX_CUT))
    again = pace_throttled(cut, taken=20, now=later + LEARN_WINDOW)
    assert again.limit == pytest.approx(50 * (1 - LEARN_MAX_CUT) ** 2)


def test_the_limit_is_kept_then_probed_upwards_and_never_falls_to_zero():
    pace = Pace(limit=10.0, since=0.0)
    assert pace_limit(pace, now=LEARN_PROBE_AFTER) == 10.0
    probed = pace_limit(pace, now=LEARN_PROBE_AFTER + 4)
    assert probed == pytest.approx(10.0 * (1 + 4 * LEARN_GROWTH))
    assert pace_limit(Pace(), now=5.0) is None
    assert pace_throttled(Pace(), taken=0, now=1.0).limit == 1.0


def test_the_window_counts_what_the_endpoint_took_before_a_refused_request():
    window = SendWindow(span=1.0)
    window.sent.extend([0.1, 0.2, 0.5, 1.15, 1.3, 1.4])
    # The request written at 1.3 was refused: it is dropped, and the endpoint took those of
    # (0.3, 1.3): two; the one written later (1.4) is not counted.
    assert window.refused(sent_at=1.3) == 2
    assert list(window.sent) == [0.1, 0.2, 0.5, 1.15, 1.4]


def test_the_window_forgets_writes_two_spans_old_however_long_the_run():
    window = SendWindow(span=0.01)
    for _ in range(3):
        window.let_go()
        window.written()
    time.sleep(0.03)
    window.let_go()
    window.written()
    assert len(window.sent) == 1 and window.pending == 0


def test_a_declared_limit_is_kept_and_no_limit_is_learnt():
    assert isinstance(limiter_build(redis_url="", scope="s", rpm=None, tpm=None), LearntLimiter)
    declared = limiter_build(redis_url="", scope="s", rpm=60, tpm=None)
    assert isinstance(declared, LocalLimiter)


def test_the_fake_endpoint_refuses_past_its_rate_at_once_and_says_when_to_come_back():
    with FakeLLM(limit_per_second=2, latency=0) as fake:
        body = {"model": "x", "messages": [{"role": "user", "content": "你好"}]}
        url = f"{fake.base_url}/chat/completions"
        replies = [httpx.post(url, json=body, timeout=10) for _ in range(3)]
        assert [r.status_code for r in replies] == [200, 200, 429]
        assert 0 <= float(replies[2].headers["retry-after-ms"]) <= 1000
        assert fake.stats()["by_fault"] == {"ok": 2, "over_limit": 1}


def test_an_undeclared_limit_is_learnt_from_the_429s_and_then_kept():
    with FakeLLM(limit_per_second=20, latency=0) as fake:
        client = ask_many(
            fake, n=200, concurrency=8, retry=RetryPolicy(max_attempts=20, max_total_wait=60)
        )
        refused = fake.count(fault="over_limit")
    assert client.counters.calls == 200 + refused
    # Learnt from what the endpoint took before refusing: about its limit of 20 per second,
    # far below the hundreds per second 8 requests at a time with no latency would send (after
    # two quiet seconds it probes upwards, and a cut takes at most a tenth off: 20.7 was seen).
    assert 15 <= client.limiter.pace.limit < 1.2 * 20
    # Unpaced, each of the ten seconds ends in a burst of refusals (72-75 of these 200 were
    # refused with no limiter, each retried when its retry-after-ms said); learnt, those of
    # the requests already out when it was learnt, and a few at each probe upwards (8-18).
    assert 0 < refused <= 4 * 8


def test_a_lone_server_error_is_retried_at_once_and_the_next_one_backs_off():
    async def ask(fake: FakeLLM) -> None:
        # No wait allowed at all: the first retry still goes out, the second must wait.
        client = ChatClient(
            Endpoint(base_url=fake.base_url, model="m"),
            retry=RetryPolicy(max_attempts=5, max_total_wait=0.001),
        )
        try:
            await client.complete([{"role": "user", "content": "你好"}])
        finally:
            await client.close()

    with FakeLLM() as fake:
        fake.queue("server_error", "ok")
        asyncio.run(ask(fake))
        assert fake.count() == 2
        fake.queue("server_error", "server_error", "ok")
        with pytest.raises(RequestFailed, match="retry wait budget"):
            asyncio.run(ask(fake))
        assert fake.count() == 2 + 2
