"""The client's connections: certificates are loaded only for an endpoint that uses TLS."""

import asyncio

import httpx
import pytest

from benchmark.llm.client import ChatClient, Endpoint
from benchmark.llm.fake_server import FakeLLM


def test_a_plain_http_endpoint_is_asked_without_loading_certificates(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("certificates loaded for a plain-HTTP endpoint")

    monkeypatch.setattr(httpx, "create_ssl_context", refuse)

    async def ask(base_url: str) -> str | None:
        client = ChatClient(Endpoint(base_url=base_url, model="m"), concurrency=2)
        try:
            return (await client.complete([{"role": "user", "content": "你好"}])).text
        finally:
            await client.close()

    with FakeLLM() as fake:
        assert asyncio.run(ask(fake.base_url))
    # An https endpoint loads them (and here fails on the refusal before any request).
    with pytest.raises(AssertionError, match="certificates loaded"):
        asyncio.run(ask("https://127.0.0.1:9/v1"))
