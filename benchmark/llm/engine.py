"""Run many chat conversations against one endpoint: concurrency, cache, re-asks, budget.

The engine knows nothing about the database. The caller hands it :class:`WorkItem` s and a
:class:`Store` of async callbacks; the moment a usable reply arrives it is cached and its
result handed to the store, so a killed run loses at most what was in flight. ``concurrency``
bounds the units asking at once: a unit keeps its slot through its re-asks and gives it up
before its outcome is written (waiting for a commit is not a request; holding the slot through
it kept 32 slots at 0.5 s latency below 60 requests a second). Units asking or being written
are at most twice the concurrency, which bounds what a killed run asks again.

Per unit: look the request up in the cache (both the structured and the plain variant), else
check the budget, send it (the client retries transport faults), and interpret the reply. A
reply that does not interpret is asked again with a correction turn, at most ``max_reasks``
times; after that — or when the request fails for good — the unit is recorded as failed with
the reason and the raw reply. A failure is never turned into a result.

Hedging (``hedge_quantile``): a request still unanswered after that quantile of the replies'
latencies so far is sent a second time while a slot is free (no unit waiting, fewer requests out
than the concurrency); the first usable reply wins. A hedge is a request like any other: it
waits for the rate limit, reserves and spends budget (and is not sent when the budget would not
cover it), and the tokens of both replies are counted. A losing request still out when the run
ends is cancelled and its estimated input counted.
"""

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmark.llm.accounting import Price, Tally, messages_tokens, tokens_estimate
from benchmark.llm.cache_key import request_key
from benchmark.llm.client import ChatClient, Completion, EndpointRefused, RequestFailed
from benchmark.llm.parser import ReplyError
from benchmark.llm.progress import Progress

DEFAULT_EXPECTED_OUT_TOKENS = 1500
HEDGE_MIN_SAMPLES = 20  # replies seen before their latency quantile is trusted
REFUSED = "refused"  # the stop reason of a run the endpoint refused (benchmark.llm.client)
_HTTP_STATUS = re.compile(r"request failed: HTTP \d+")


def reason_kind(reason: str) -> str:
    """A failure's reason without its details (a reply's body, the attempts it took), so that
    a run's errors can be counted by kind: "request failed: HTTP 500", "no usable reply after
    3 asks: expected 4 verdicts, got 3"."""
    kind = reason.split(" (", 1)[0]
    status = _HTTP_STATUS.match(kind)
    return status.group(0) if status else kind[:120]


@dataclass(frozen=True)
class WorkItem:
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


@dataclass(frozen=True)
class Call:
    """What asking for one unit took: the conversation last sent (its re-asks included), when
    the first ask started (epoch seconds) and how long until the outcome, the asks, and the
    tokens of their replies as the run counts them (``reply_tokens``; from the cache too)."""

    messages: list[dict]
    started_at: float
    seconds: float
    asks: int
    tokens_in: int
    tokens_out: int
    cached: bool  # every reply came from the cache


class Store(Protocol):
    async def cached(self, keys: list[str]) -> dict[str, CachedReply]: ...
    async def remember(self, key: str, reply: Completion) -> None: ...
    async def accept(self, unit: WorkItem, result: Any, raw: str, call: Call) -> None: ...
    async def fail(self, unit: WorkItem, reason: str, raw: str, call: Call) -> None: ...
    async def checkpoint(self, progress: Progress, tally: Tally) -> None: ...


Interpret = Callable[[WorkItem, str | None, str | None], Any]  # raises ReplyError
Reask = Callable[[WorkItem, list[dict], str | None, str], list[dict]]


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
    hedge_quantile: float | None = None  # e.g. 0.95; None sends every request once


class BudgetExceeded(Exception):
    pass


def reply_tokens(reply: Completion, tokens_in: int) -> tuple[int, int]:
    """A reply's tokens in and out as a run counts them: the endpoint's usage, else estimates
    (``tokens_in`` of the prompt; the reply's text)."""
    return (
        reply.tokens_in or tokens_in,
        reply.tokens_out or tokens_estimate(reply.text or reply.refusal or ""),
    )


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
        self.refusal = ""  # what the endpoint said when it refused the run (REFUSED)
        self._reserved = 0.0
        self._settled = asyncio.Event()  # set when a request's cost is known (see _reserve_room)
        self._out_seen: list[int] = []
        # The replies' mean length in the run's earlier sessions: the guess until one comes.
        self._out_before = self.tally.tokens_out / self.tally.calls if self.tally.calls else 0
        self._latencies: list[float] = []  # of replies that came at the first attempt
        self._out = 0  # requests out now, hedges included
        self._unstarted = 0  # units still waiting for a slot
        self._stragglers: dict[asyncio.Task, int] = {}  # losing requests still out: tokens in
        self.hedges = 0  # duplicate requests sent
        self.hedges_won = 0  # units whose usable reply was the duplicate's
        self._base_calls = self.tally.calls
        self._base_retries = self.tally.retries

    async def run(self, units: Iterable[WorkItem], *, total: int, done: int, errors: int) -> None:
        """Work through ``units``; ``total/done/errors`` include what earlier sessions did."""
        self._total, self._done, self._errors = total, done, errors
        self._session_done = 0
        self._started = time.monotonic()
        self._last_checkpoint = 0.0
        asking = asyncio.Semaphore(self.config.concurrency)
        # Units asking or being written: what a killed run can lose and ask again.
        in_flight = asyncio.Semaphore(2 * self.config.concurrency)
        units = list(units)
        self._unstarted = len(units)
        # One look-up for every first request, so the cache is not on each request's path.
        self._prefetched: dict[str, CachedReply] = {}
        if not self.config.force and units:
            keys = [key for unit in units for key in self._keys(unit.messages).values()]
            self._prefetched = await self.store.cached(keys)

        async def guarded(unit: WorkItem) -> None:
            async with in_flight:
                async with asking:
                    self._unstarted -= 1
                    if self.stop_reason:
                        return
                    outcome = await self._unit(unit)
                if outcome is not None:
                    await outcome  # written with the slot free: a commit is not a request

        try:
            await asyncio.gather(*(guarded(unit) for unit in units))
        finally:
            await self._cancel_stragglers()
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

    async def _unit(self, unit: WorkItem) -> Awaitable[None] | None:
        """Ask until a usable reply or give up; return the store's write of the outcome (None
        when the budget stopped the run), for the caller to await once the unit's slot is
        free."""
        messages = unit.messages
        raw = ""
        problem = ""
        started_at, started = time.time(), time.monotonic()
        asks, tokens, cached = 0, [0, 0], True

        def call() -> Call:
            seconds = time.monotonic() - started
            return Call(messages, started_at, seconds, asks, *tokens, cached and asks > 0)

        try:
            for asked in range(self.config.max_reasks + 1):
                reply, key = await self._complete(unit, messages, first=asked == 0)
                asks, cached = asks + 1, cached and key is None
                used = reply_tokens(reply, messages_tokens(messages))
                tokens = [tokens[0] + used[0], tokens[1] + used[1]]
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
                # Queued together, so the database thread commits both in one batch.
                return self._written(
                    unit,
                    self.store.accept(unit, result, raw, call()),
                    *([self.store.remember(key, reply)] if key is not None else []),
                    error=False,
                )
            reason = f"no usable reply after {self.config.max_reasks + 1} asks: {problem}"
        except EndpointRefused as exc:
            # No request can succeed: the run stops, and nothing is stored as an error verdict.
            if not self.stop_reason:
                self.stop_reason, self.refusal = REFUSED, str(exc)
            return None
        except RequestFailed as exc:
            self.tally.request_failures += 1
            reason = f"request failed: {exc}"
        except BudgetExceeded:
            return None
        return self._written(unit, self.store.fail(unit, reason, raw, call()), error=True)

    async def _written(self, unit: WorkItem, *writes: Awaitable[None], error: bool) -> None:
        await asyncio.gather(*writes)
        self._finished(unit, error=error)

    def _finished(self, unit: WorkItem, *, error: bool) -> None:
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
        self, unit: WorkItem, messages: list[dict], *, first: bool
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
        tokens_in = messages_tokens(messages)
        estimate = await self._reserve_room(tokens_in)
        sent = asyncio.ensure_future(self._request(messages, rf, tokens_in, estimate))
        delay = self._hedge_delay()
        try:
            if delay is not None:
                await asyncio.wait({sent}, timeout=delay)
            if sent.done() or delay is None or not self._slot_free():
                reply = await sent
            else:
                reply = await self._hedged(unit, sent, messages, rf, tokens_in)
        except asyncio.CancelledError:
            sent.cancel()  # asyncio.wait leaves it running
            raise
        await self._maybe_checkpoint()
        return reply, keys[reply.structured]

    async def _request(
        self, messages: list[dict], rf: dict | None, tokens_in: int, estimate: float
    ) -> Completion:
        """Send one request (the client retries it) and count what it spent."""
        self._out += 1
        started = time.monotonic()
        try:
            reply = await self.client.complete(messages, response_format=rf, tokens_in=tokens_in)
        finally:
            self._out -= 1
            self._reserved -= estimate
            # Waiters run at their next turn, after this request's cost is spent below.
            self._settled.set()
        if reply.attempts == 1:
            self._latencies.append(time.monotonic() - started)
        used_in, used_out = reply_tokens(reply, tokens_in)
        self._out_seen.append(used_out)
        self._spend(tokens_in=used_in, tokens_out=used_out)
        return reply

    def _spend(self, *, tokens_in: int, tokens_out: int) -> None:
        self.tally.tokens_in += tokens_in
        self.tally.tokens_out += tokens_out
        self.tally.cost += self.config.price.cost(tokens_in=tokens_in, tokens_out=tokens_out)

    def _hedge_delay(self) -> float | None:
        """The latency quantile after which a request is hedged; None when not hedging (yet)."""
        quantile, seen = self.config.hedge_quantile, self._latencies
        if quantile is None or len(seen) < HEDGE_MIN_SAMPLES:
            return None
        return sorted(seen)[min(len(seen) - 1, int(quantile * len(seen)))]

    def _slot_free(self) -> bool:
        return self._unstarted == 0 and self._out < self.config.concurrency

    async def _hedged(
        self,
        unit: WorkItem,
        sent: asyncio.Future,
        messages: list[dict],
        rf: dict | None,
        tokens_in: int,
    ) -> Completion:
        """Race a duplicate against ``sent``: the first usable reply, else the first reply."""
        try:
            estimate = self._reserve(tokens_in, stop=False)
        except BudgetExceeded:
            return await sent
        self.hedges += 1
        hedge = asyncio.ensure_future(self._request(messages, rf, tokens_in, estimate))
        pending: set[asyncio.Future] = {sent, hedge}
        fallback: asyncio.Future | None = None
        try:
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=lambda t: t is hedge):  # the original first
                    if task.exception() is None and self._usable(unit, task.result()):
                        self.hedges_won += task is hedge
                        return task.result()
                    fallback = fallback or task
            return fallback.result()  # neither usable: the first to come, or its failure
        finally:
            for task in pending:
                self._stragglers[task] = tokens_in
                task.add_done_callback(self._straggler_done)

    def _straggler_done(self, task: asyncio.Future) -> None:
        self._stragglers.pop(task, None)
        if not task.cancelled():
            task.exception()  # a loser's failure is not its unit's: retrieved, dropped

    def _usable(self, unit: WorkItem, reply: Completion) -> bool:
        try:
            self.interpret(unit, reply.text, reply.refusal)
        except ReplyError:
            return False
        return True

    async def _cancel_stragglers(self) -> None:
        """Cancel the losing requests still out; their prompts were sent: count them."""
        for task, tokens_in in list(self._stragglers.items()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            if task.cancelled():
                self._spend(tokens_in=tokens_in, tokens_out=0)

    async def _reserve_room(self, tokens_in: int) -> float:
        """``_reserve``, waiting while requests in flight hold the room: their reservations are
        guesses (before the first reply, ``DEFAULT_EXPECTED_OUT_TOKENS`` each) that their
        replies settle, so the run stops on its budget only when nothing it has out could free
        room for the next request."""
        while True:
            if self.stop_reason:
                raise BudgetExceeded
            try:
                return self._reserve(tokens_in, stop=self._reserved < 1e-12)
            except BudgetExceeded:
                if self.stop_reason:
                    raise
            self._settled.clear()
            await self._settled.wait()

    def _reserve(self, tokens_in: int, *, stop: bool = True) -> float:
        """Refuse to start a request whose estimated cost would cross ``max_cost`` (and, with
        ``stop``, stop the run)."""
        if self.config.max_cost is None:
            return 0.0
        max_tokens = self.client.endpoint.parameters.get("max_tokens")
        seen = self._out_seen
        guess = max(seen) if seen else self._out_before or DEFAULT_EXPECTED_OUT_TOKENS
        tokens_out = int(max_tokens or guess)
        estimate = self.config.price.cost(tokens_in=tokens_in, tokens_out=tokens_out)
        if self.tally.cost + self._reserved + estimate > self.config.max_cost:
            if stop:
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
