"""Hedged requests: a duplicate of a slow request wins, is paid for, and is never sent beyond
the budget. Against the real fake endpoint; the assertions count, they do not time."""

import asyncio

from benchmark.llm.accounting import Price, tokens_estimate
from benchmark.llm.client import ChatClient, Endpoint, RetryPolicy
from benchmark.llm.engine import Engine, EngineConfig, WorkItem
from benchmark.llm.fake_server import FakeLLM, fake_verdict
from benchmark.llm.parser import judge_reply_parse

N = 30
REPLY_TOKENS = 23  # the fake's reply to one criterion, either verdict


def prompt(i: int) -> str:
    return f"请逐条判断：\n[共情][1] 标准编号 {i:02d}\n"  # every prompt the same length


class MemoryStore:
    def __init__(self) -> None:
        self.accepted: dict[int, list[bool]] = {}
        self.failed: dict[int, str] = {}

    async def cached(self, keys):
        return {}

    async def remember(self, key, reply):
        return None

    async def accept(self, unit, result, raw, call):
        self.accepted[unit.ident] = list(result.met)

    async def fail(self, unit, reason, raw, call):
        self.failed[unit.ident] = reason

    async def checkpoint(self, progress, tally):
        return None


def judge_all(
    fake: FakeLLM, *, hedge: float | None, max_cost: float | None = None, max_tokens: int = 0
):
    store = MemoryStore()

    async def go() -> Engine:
        client = ChatClient(
            Endpoint(
                base_url=fake.base_url,
                model="m",
                parameters={"max_tokens": max_tokens} if max_tokens else {},
            ),
            concurrency=4,
            retry=RetryPolicy(backoff_base=0.01),
        )
        engine = Engine(
            client=client,
            store=store,
            config=EngineConfig(
                template_version="t",
                concurrency=4,
                hedge_quantile=hedge,
                max_cost=max_cost,
                price=Price(1.0, 1.0, known=True),
                force=True,
            ),
            interpret=lambda unit, text, refusal: judge_reply_parse(text or "", expected=1),
            reask=lambda unit, messages, text, problem: messages,
        )
        units = [
            WorkItem(i, [{"role": "user", "content": prompt(i)}], expected=1) for i in range(N)
        ]
        try:
            await engine.run(units, total=N, done=0, errors=0)
        finally:
            await client.close()
        return engine

    return asyncio.run(go()), store


def right(store: MemoryStore) -> bool:
    return store.accepted == {i: [fake_verdict(f"标准编号 {i:02d}")] for i in range(N)}


def test_a_slow_reply_is_hedged_and_the_duplicate_wins_and_both_are_counted():
    with FakeLLM(latency=0.02, slow_seconds=60) as fake:
        fake.fail_prompt("标准编号 29", "slow")  # the last unit: its slot's neighbours are free
        engine, store = judge_all(fake, hedge=0.9)
        # The run ended while the slow reply was still out: the duplicate's reply was used.
        assert fake.stats()["in_flight"] == 1 and fake.count(fault="slow") == 1
    assert right(store) and not store.failed
    assert engine.hedges >= 1 and engine.hedges_won >= 1
    assert fake.count() == N + engine.hedges == engine.tally.calls
    # Every request sent is paid for: the replies' tokens and the cancelled slow one's prompt.
    assert engine.tally.tokens_in == (N + engine.hedges) * tokens_estimate(prompt(0))


def test_without_hedging_the_slow_reply_is_waited_for():
    with FakeLLM(latency=0.02, slow_seconds=0.5) as fake:
        fake.fail_prompt("标准编号 29", "slow")
        engine, store = judge_all(fake, hedge=None)
        assert fake.count() == N and fake.stats()["in_flight"] == 0
    assert right(store) and engine.hedges == 0


def test_a_hedge_the_budget_would_not_cover_is_not_sent():
    # Each reply is exactly REPLY_TOKENS long: with max_tokens at that, a request's reserved
    # cost is its real cost, and the budget holds the units' requests and half of one more.
    price = Price(1.0, 1.0, known=True)
    per_request = price.cost(tokens_in=tokens_estimate(prompt(0)), tokens_out=REPLY_TOKENS)
    with FakeLLM(latency=0.02, slow_seconds=0.5) as fake:
        fake.fail_prompt("标准编号 29", "slow")
        engine, store = judge_all(
            fake, hedge=0.9, max_cost=(N + 0.5) * per_request, max_tokens=REPLY_TOKENS
        )
        assert fake.count() == N and fake.count(fault="slow") == 1
    assert right(store) and engine.stop_reason == "" and engine.hedges == 0
    assert engine.tally.tokens_out == N * REPLY_TOKENS
