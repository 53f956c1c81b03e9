"""A 429 waits as long as the endpoint asks: retry-after-ms first, then Retry-After."""

import asyncio
import email.utils
import time

import httpx

from benchmark.llm.client import ChatClient, Endpoint, RetryPolicy, retry_after_seconds
from benchmark.llm.fake_server import FakeLLM


def test_milliseconds_come_before_seconds_and_a_bad_value_falls_back():
    headers = lambda **h: httpx.Headers({k.replace("_", "-"): v for k, v in h.items()})  # noqa: E731
    assert retry_after_seconds(headers(retry_after_ms="250", retry_after="7")) == 0.25
    assert retry_after_seconds(headers(retry_after_ms="soon", retry_after="7")) == 7.0
    assert retry_after_seconds(headers(retry_after_ms="-5")) == 0.0
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds(headers(retry_after=date), now=1_000_000) == 30.0
    assert retry_after_seconds(headers()) is None
    assert retry_after_seconds(headers(retry_after="whenever")) is None


def test_the_client_waits_the_milliseconds_not_the_rounded_up_seconds():
    async def ask(fake: FakeLLM) -> float:
        client = ChatClient(
            Endpoint(base_url=fake.base_url, model="m"), retry=RetryPolicy(max_total_wait=10)
        )
        started = time.monotonic()
        try:
            await client.complete([{"role": "user", "content": "你好"}])
        finally:
            await client.close()
        return time.monotonic() - started

    with FakeLLM(retry_after=8, retry_after_ms=200) as fake:
        fake.queue("rate_limit")
        waited = asyncio.run(ask(fake))
        assert fake.stats()["by_status"] == {"200": 1, "429": 1}
    # 200 ms plus at most 25 % jitter; Retry-After's 8 s would have spent the wait budget.
    assert 0.2 <= waited < 4
