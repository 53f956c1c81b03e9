"""A unit's concurrency slot bounds its requests, not the store's write of its outcome: while
the database is still committing a unit's verdicts, the next unit is already asking; units
asking or being written are at most twice the concurrency (what a killed run can lose).
Against the real fake endpoint; the assertions count requests, they do not time."""

import asyncio

from benchmark.llm.client import ChatClient, Endpoint
from benchmark.llm.engine import Engine, EngineConfig, WorkItem
from benchmark.llm.fake_server import FakeLLM
from benchmark.llm.parser import judge_reply_parse

N = 6
CONCURRENCY = 2


class SlowStore:
    """A store whose writes wait until every unit's request has reached the endpoint (or two
    seconds have passed), as a database thread busy committing would."""

    def __init__(self, fake: FakeLLM) -> None:
        self.fake = fake
        self.sent_when_written: list[int] = []
        self.accepted: list[int] = []

    async def _commit(self) -> None:
        for _ in range(200):
            if self.fake.count() == N:
                break
            await asyncio.sleep(0.01)
        self.sent_when_written.append(self.fake.count())

    async def cached(self, keys):
        return {}

    async def remember(self, key, reply):
        return None

    async def accept(self, unit, result, raw, call):
        await self._commit()
        self.accepted.append(unit.ident)

    async def fail(self, unit, reason, raw, call):
        raise AssertionError(reason)

    async def checkpoint(self, progress, tally):
        return None


def most_in_flight(fake: FakeLLM) -> int:
    events = sorted(
        [(r.started, 1) for r in fake.requests] + [(r.answered, -1) for r in fake.requests]
    )
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    return peak


def test_the_next_unit_asks_while_the_previous_ones_are_being_written():
    with FakeLLM(latency=0.05) as fake:
        store = SlowStore(fake)

        async def go() -> None:
            client = ChatClient(Endpoint(fake.base_url, "m"), concurrency=CONCURRENCY)
            engine = Engine(
                client=client,
                store=store,
                config=EngineConfig(template_version="t", concurrency=CONCURRENCY, force=True),
                interpret=lambda unit, text, refusal: judge_reply_parse(text or "", expected=1),
                reask=lambda unit, messages, text, problem: messages,
            )
            units = [
                WorkItem(i, [{"role": "user", "content": f"请逐条判断：\n[共情][1] 标准 {i}\n"}], 1)
                for i in range(N)
            ]
            try:
                await engine.run(units, total=N, done=0, errors=0)
            finally:
                await client.close()

        asyncio.run(go())
        # The first write to end waited with four requests sent: the slots of the units being
        # written were free (held through the writes: 2), and no more than twice the
        # concurrency were asking or being written (unbounded: 6). Only the first: once it
        # ends, its place frees and a fifth request may go before the next write ends.
        assert store.sent_when_written[0] == 2 * CONCURRENCY
        assert sorted(store.accepted) == list(range(N))
        assert fake.count() == N and most_in_flight(fake) <= CONCURRENCY
