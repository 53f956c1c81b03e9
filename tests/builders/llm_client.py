"""Driving the LLM client against the fake server, without Django: a process the rate-limit
tests spawn imports this module alone (``multiprocessing``'s spawn imports the test module
afresh, with no settings)."""

import asyncio

from benchmark.llm.client import ChatClient, Endpoint
from benchmark.llm.fake_server import FakeLLM, collector_paused


def ask_many(fake: FakeLLM, *, n: int, concurrency: int, **client_options) -> ChatClient:
    """Ask ``n`` questions, ``concurrency`` at a time, through one ``ChatClient`` built with
    ``client_options`` (its limiter, its retry policy); the client, closed, with its counters."""

    async def go() -> ChatClient:
        client = ChatClient(
            Endpoint(base_url=fake.base_url, model="m"), concurrency=concurrency, **client_options
        )
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                await client.complete([{"role": "user", "content": f"问题 {i}"}])

        try:
            await asyncio.gather(*(one(i) for i in range(n)))
        finally:
            await client.close()
            if hasattr(client.limiter, "close"):
                await client.limiter.close()
        return client

    with collector_paused():  # the fake's clock is this process's: a collection would skew it
        return asyncio.run(go())
