"""Run many chat conversations against one endpoint: concurrency, cache, re-asks, budget.

The engine knows nothing about the database. The caller hands it :class:`Unit` s and a
:class:`Store` of async callbacks; the moment a usable reply arrives it is cached and its
result handed to the store, so a killed run loses at most what was in flight.

Per unit: look the request up in the cache (both the structured and the plain variant), else
check the budget, send it (the client retries transport faults), and interpret the reply. A
reply that does not interpret is asked again with a correction turn, at most ``max_reasks``
times; after that — or when the request fails for good — the unit is recorded as failed with
the reason and the raw reply. A failure is never turned into a result.
"""

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmark.llm.accounting import Price, Tally, tokens_estimate
from benchmark.llm.cache_key import request_key
from benchmark.llm.client import ChatClient, Completion, RequestFailed
from benchmark.llm.parser import ReplyError
from benchmark.llm.progress import Progress

DEFAULT_EXPECTED_OUT_TOKENS = 1500


@dataclass(frozen=True)
class Unit:
    ident: Any  # the caller's handle (a response id, a rubric item id, …)
    messages: list[dict]
    expected: int = 0  # criteria to judge; 0 for generation

    @property
    def weight(self) -> int:
        """How much of the run's total this unit is (criteria for a judge, 1 for an answer)."""
        return self.expected or 1


@dataclass(frozen=True)
class CachedReply:
    text: str | None
    refusal: str | None
    tokens_in: int
    tokens_out: int


class Store(Protocol):
    async def cached(self, keys: list[str]) -> dict[str, CachedReply]: ...
    async def remember(self, key: str, reply: Completion) -> None: ...
    async def accept(self, unit: Unit, result: Any, raw: str) -> None: ...
    async def fail(self, unit: Unit, reason: str, raw: str) -> None: ...
    async def checkpoint(self, progress: Progress, tally: Tally) -> None: ...


Interpret = Callable[[Unit, str | None, str | None], Any]  # raises ReplyError
Reask = Callable[[Unit, list[dict], str | None, str], list[dict]]


@dataclass
class EngineConfig:
    template_version: str
    response_format: dict | None = None
    concurrency: int = 16
    max_reasks: int = 2
    max_cost: float | None = None
    price: Price = field(default_factory=lambda: Price(0.0, 0.0, known=False))
    force: bool = False  # ignore cached replies (they are still written)
    repeat: int = 0  # a judge run's repeat index: part of the cache key (cache_key.request_key)
    checkpoint_every: float = 1.0


class BudgetExceeded(Exception):
    pass


class Engine:
    def __init__(
        self,
        *,
        client: ChatClient,
        store: Store,
        config: EngineConfig,
        interpret: Interpret,
        reask: Reask,
        tally: Tally | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.client = client
        self.store = store
        self.config = config
        self.interpret = interpret
        self.reask = reask
        self.tally = tally or Tally()
        self.on_progress = on_progress
        self.stop_reason = ""
        self._reserved = 0.0
        self._out_seen: list[int] = []
        self._base_calls = self.tally.calls
        self._base_retries = self.tally.retries

    async def run(self, units: Iterable[Unit], *, total: int, done: int, errors: int) -> None:
        """Work through ``units``; ``total/done/errors`` include what earlier sessions did."""
        self._total, self._done, self._errors = total, done, errors
        self._session_done = 0
        self._started = time.monotonic()
        self._last_checkpoint = 0.0
        semaphore = asyncio.Semaphore(self.config.concurrency)
        units = list(units)
        # One look-up for every first request, so the cache is not on each request's path.
        self._prefetched: dict[str, CachedReply] = {}
        if not self.config.force and units:
            keys = [key for unit in units for key in self._keys(unit.messages).values()]
            self._prefetched = await self.store.cached(keys)

        async def guarded(unit: Unit) -> None:
            async with semaphore:
                if not self.stop_reason:
                    await self._unit(unit)

        try:
            await asyncio.gather(*(guarded(unit) for unit in units))
        finally:
            self._sync_counters()
            self.tally.wall_seconds += time.monotonic() - self._started
            await self.store.checkpoint(self.progress(), self.tally)

    def progress(self) -> Progress:
        return Progress(
            total=self._total,
            done=self._done,
            errors=self._errors,
            calls=self.tally.calls,
            tokens=self.tally.tokens_in + self.tally.tokens_out,
            cost=self.tally.cost,
            elapsed=time.monotonic() - self._started,
            done_this_session=self._session_done,
        )

    def _sync_counters(self) -> None:
        self.tally.calls = self._base_calls + self.client.counters.calls
        self.tally.retries = self._base_retries + self.client.counters.retries

    async def _unit(self, unit: Unit) -> None:
        messages = unit.messages
        raw = ""
        problem = ""
        try:
            for asked in range(self.config.max_reasks + 1):
                reply, key = await self._complete(messages, first=asked == 0)
                raw = reply.text if reply.text is not None else f"[refusal] {reply.refusal or ''}"
                try:
                    result = self.interpret(unit, reply.text, reply.refusal)
                except ReplyError as exc:
                    # Unusable replies are not cached: asking again must reach the model.
                    self.tally.parse_failures += 1
                    problem = exc.problem
                    if asked < self.config.max_reasks:
                        self.tally.reasks += 1
                        messages = self.reask(unit, messages, reply.text, problem)
                    continue
                if key is not None:
                    await self.store.remember(key, reply)
                await self.store.accept(unit, result, raw)
                return self._finished(unit, error=False)
            await self.store.fail(
                unit, f"no usable reply after {self.config.max_reasks + 1} asks: {problem}", raw
            )
            self._finished(unit, error=True)
        except RequestFailed as exc:
            self.tally.request_failures += 1
            await self.store.fail(unit, f"request failed: {exc}", raw)
            self._finished(unit, error=True)
        except BudgetExceeded:
            return

    def _finished(self, unit: Unit, *, error: bool) -> None:
        self._done += unit.weight
        self._session_done += unit.weight
        self._errors += unit.weight if error else 0
        self._sync_counters()
        if self.on_progress:
            self.on_progress(self.progress())

    def _keys(self, messages: list[dict]) -> dict[bool, str]:
        """Cache keys by "structured output requested", preferred variant first."""
        rf = self.config.response_format if self.client.structured_ok is not False else None
        return {
            structured: request_key(
                endpoint_model=self.client.endpoint.model,
                template_version=self.config.template_version,
                parameters={**self.client.endpoint.parameters, "response_format": rf}
                if structured
                else self.client.endpoint.parameters,
                messages=messages,
                repeat=self.config.repeat,
            )
            for structured in ((True, False) if rf else (False,))
        }

    async def _complete(
        self, messages: list[dict], *, first: bool
    ) -> tuple[Completion, str | None]:
        """The reply and the cache key to keep it under (None when it came from the cache)."""
        rf = self.config.response_format if self.client.structured_ok is not False else None
        keys = self._keys(messages)
        if not self.config.force:
            if first:
                found = self._prefetched
            else:
                found = await self.store.cached(list(keys.values()))
            hit = next((found[key] for key in keys.values() if key in found), None)
            if hit is not None:
                self.tally.cached += 1
                cached = Completion(hit.text, hit.refusal, hit.tokens_in, hit.tokens_out, 0, False)
                return cached, None
        tokens_in = sum(tokens_estimate(str(m.get("content", ""))) for m in messages)
        estimate = self._reserve(tokens_in)
        try:
            reply = await self.client.complete(messages, response_format=rf)
        finally:
            self._reserved -= estimate
        used_in = reply.tokens_in or tokens_in
        used_out = reply.tokens_out or tokens_estimate(reply.text or reply.refusal or "")
        self._out_seen.append(used_out)
        self.tally.tokens_in += used_in
        self.tally.tokens_out += used_out
        self.tally.cost += self.config.price.cost(tokens_in=used_in, tokens_out=used_out)
        await self._maybe_checkpoint()
        return reply, keys[reply.structured]

    def _reserve(self, tokens_in: int) -> float:
        """Refuse to start a request whose estimated cost would cross ``max_cost``."""
        if self.config.max_cost is None:
            return 0.0
        max_tokens = self.client.endpoint.parameters.get("max_tokens")
        seen = self._out_seen
        tokens_out = int(max_tokens or (max(seen) if seen else DEFAULT_EXPECTED_OUT_TOKENS))
        estimate = self.config.price.cost(tokens_in=tokens_in, tokens_out=tokens_out)
        if self.tally.cost + self._reserved + estimate > self.config.max_cost:
            self.stop_reason = "budget"
            raise BudgetExceeded
        self._reserved += estimate
        return estimate

    async def _maybe_checkpoint(self) -> None:
        now = time.monotonic()
        if now - self._last_checkpoint >= self.config.checkpoint_every:
            self._last_checkpoint = now
            self._sync_counters()
            await self.store.checkpoint(self.progress(), self.tally)
