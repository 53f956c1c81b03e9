"""Rate limiters the client awaits before each request: in-process, or shared through Redis.

Both enforce the same two token buckets (requests and tokens per minute) and the same
one-second window on requests from ``ratelimit_math``; the Redis one runs the arithmetic in a
Lua script with the server's clock, so every worker process draws from one budget. A declared
limit is the caller's word: a 429 under it is waited out by its own request.

Without a declared limit the client learns one (:class:`LearntLimiter`): nothing is held back
until the endpoint answers 429; from then on at most as many requests go out in any second as
the endpoint took in the second before its refusal, probing slowly upwards after a quiet while
(``ratelimit_math.pace_*``).
"""

import asyncio
import bisect
import hashlib
import time
from collections import deque
from typing import Protocol

from benchmark.llm.ratelimit_math import (
    LEARN_WINDOW,
    WINDOW_POLL,
    WINDOW_SECONDS,
    Bucket,
    Pace,
    bucket_new,
    buckets_take,
    pace_limit,
    pace_throttled,
    window_limit,
    window_wait,
)


class Limiter(Protocol):
    async def acquire(self, *, tokens: int) -> None: ...

    async def sent(self) -> None:
        """A request let go by ``acquire`` has been written (or failed before it was); called
        once per ``acquire``."""

    def throttled(self, *, sent_at: float) -> None:
        """The endpoint answered 429 to a request written at ``sent_at`` (monotonic seconds,
        read just before its ``sent``)."""


class SendWindow:
    """The requests of the last ``span`` seconds as the endpoint counts them: by when they were
    written, not when they were let go (under a busy event loop the two are apart by more than
    a window's slack), with those let go and not written yet counted in until they are."""

    def __init__(self, *, span: float) -> None:
        self.span = span
        self.sent: deque[float] = deque()  # written, oldest first (kept two spans)
        self.pending = 0

    def let_go(self) -> None:
        self.pending += 1

    def wait(self, *, limit: int, now: float) -> float:
        return window_wait(self.sent, limit=limit, pending=self.pending, now=now, span=self.span)

    def written(self) -> None:
        now = time.monotonic()
        self.pending -= 1
        self.sent.append(now)
        while self.sent[0] <= now - 2 * self.span:
            self.sent.popleft()

    def refused(self, *, sent_at: float) -> int:
        """A request written at ``sent_at`` was refused: drop it (the endpoint did not take it;
        its entry is the first from ``sent_at`` on) and return how many were taken in the span
        before it."""
        at = bisect.bisect_left(self.sent, sent_at)
        if at < len(self.sent):
            del self.sent[at]
        return at - bisect.bisect_left(self.sent, sent_at - self.span)


class LearntLimiter:
    """No limit until the endpoint answers 429; then at most what it took in a window, per
    window."""

    def __init__(self) -> None:
        self.pace = Pace()
        self._window = SendWindow(span=LEARN_WINDOW)
        self._lock = asyncio.Lock()

    async def acquire(self, *, tokens: int) -> None:
        while True:
            async with self._lock:
                now = time.monotonic()
                limit = pace_limit(self.pace, now=now)
                wait = 0.0 if limit is None else self._window.wait(limit=int(limit), now=now)
                if wait == 0:
                    self._window.let_go()
                    return
            await asyncio.sleep(wait)

    async def sent(self) -> None:
        self._window.written()

    def throttled(self, *, sent_at: float) -> None:
        """A request written at ``sent_at`` was refused: what the endpoint took in the window
        before it is its limit."""
        taken = self._window.refused(sent_at=sent_at)
        self.pace = pace_throttled(self.pace, taken=taken, now=time.monotonic())


class LocalLimiter:
    """Buckets and the window held in this process; fair enough for one event loop."""

    def __init__(self, *, rpm: float | None, tpm: float | None) -> None:
        now = time.monotonic()
        self._limits = [
            (kind, bucket_new(per_minute=value, now=now))
            for kind, value in (("requests", rpm), ("tokens", tpm))
            if value
        ]
        self._per_second = window_limit(rpm) if rpm else None
        self._window = SendWindow(span=WINDOW_SECONDS)
        self._lock = asyncio.Lock()

    async def acquire(self, *, tokens: int) -> None:
        costs = tuple(1.0 if kind == "requests" else float(tokens) for kind, _ in self._limits)
        while self._limits:
            async with self._lock:
                now = time.monotonic()
                wait = 0.0
                if self._per_second is not None:
                    wait = self._window.wait(limit=self._per_second, now=now)
                if wait == 0:
                    buckets = tuple(bucket for _, bucket in self._limits)
                    buckets, wait = buckets_take(buckets, costs, now=now)
                    self._limits = [(k, b) for (k, _), b in zip(self._limits, buckets, strict=True)]
                if wait == 0:
                    if self._per_second is not None:
                        self._window.let_go()
                    return
            await asyncio.sleep(wait)

    async def sent(self) -> None:
        if self._per_second is not None:
            self._window.written()

    def throttled(self, *, sent_at: float) -> None:
        return None


# KEYS: the window's list of send times, its count of requests let go and not yet written,
# then one hash per bucket. ARGV: the requests allowed in the window (0: no window), its
# seconds, how long to wait while it is all in flight, then rate_1, capacity_1, cost_1,
# rate_2, ... (ratelimit_math: window_wait, buckets_take).
# Returns 0 when every cost was taken, else the wait in microseconds (nothing taken).
_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local levels = {}
local wait = 0
local limit = tonumber(ARGV[1])
local span = tonumber(ARGV[2])
local window = table.remove(KEYS, 1)
local pending = table.remove(KEYS, 1)
if limit > 0 then
  while true do
    local oldest = redis.call('LINDEX', window, 0)
    if not oldest or tonumber(oldest) > now - span then break end
    redis.call('LPOP', window)
  end
  local free = limit - (tonumber(redis.call('GET', pending)) or 0)
  if free <= 0 then
    wait = tonumber(ARGV[3])
  elseif redis.call('LLEN', window) >= free then
    wait = tonumber(redis.call('LINDEX', window, -free)) + span - now
  end
end
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[i * 3 + 1])
  local capacity = tonumber(ARGV[i * 3 + 2])
  local cost = tonumber(ARGV[i * 3 + 3])
  local state = redis.call('HMGET', key, 'level', 'updated')
  local level = tonumber(state[1]) or capacity
  local updated = tonumber(state[2]) or now
  local elapsed = math.max(0, now - updated)
  level = math.min(capacity, level + elapsed * rate)
  levels[i] = level
  local need = math.min(cost, capacity)
  if level < need then
    wait = math.max(wait, (need - level) / rate)
  end
end
for i, key in ipairs(KEYS) do
  local cost = tonumber(ARGV[i * 3 + 3])
  local level = levels[i]
  if wait == 0 then level = level - cost end
  redis.call('HSET', key, 'level', tostring(level), 'updated', tostring(now))
  redis.call('EXPIRE', key, 3600)
end
if limit > 0 and wait == 0 then
  redis.call('INCR', pending)
  redis.call('EXPIRE', pending, 60)
end
return math.ceil(wait * 1000000)
"""

# KEYS: the window's list and its count in flight (as above): a request was written.
_LUA_SENT = """
local t = redis.call('TIME')
if (tonumber(redis.call('GET', KEYS[2])) or 0) > 0 then redis.call('DECR', KEYS[2]) end
redis.call('RPUSH', KEYS[1], string.format('%.6f', tonumber(t[1]) + tonumber(t[2]) / 1000000))
redis.call('EXPIRE', KEYS[1], 60)
"""


class RedisLimiter:
    """Buckets and the window kept in Redis under a name derived from the endpoint, shared by
    all workers."""

    def __init__(self, *, url: str, scope: str, rpm: float | None, tpm: float | None) -> None:
        import redis.asyncio as redis_asyncio

        self._redis = redis_asyncio.Redis.from_url(url)
        digest = hashlib.sha256(scope.encode()).hexdigest()[:16]
        now = 0.0
        self._window = [
            f"heartbench:ratelimit:{digest}:window",
            f"heartbench:ratelimit:{digest}:out",
        ]
        self._per_second = window_limit(rpm) if rpm else 0
        self._limits: list[tuple[str, Bucket]] = [
            (f"heartbench:ratelimit:{digest}:{kind}", bucket_new(per_minute=value, now=now))
            for kind, value in (("requests", rpm), ("tokens", tpm))
            if value
        ]
        self._script = self._redis.register_script(_LUA)
        self._sent_script = self._redis.register_script(_LUA_SENT)

    async def acquire(self, *, tokens: int) -> None:
        if not self._limits:
            return
        keys = [*self._window, *(key for key, _ in self._limits)]
        args: list[float] = [self._per_second, WINDOW_SECONDS, WINDOW_POLL]
        for key, bucket in self._limits:
            cost = 1.0 if key.endswith(":requests") else float(tokens)
            args += [bucket.rate, bucket.capacity, cost]
        while True:
            wait_us = int(await self._script(keys=keys, args=args))
            if wait_us == 0:
                return
            await asyncio.sleep(wait_us / 1_000_000)

    async def sent(self) -> None:
        if self._per_second:
            await self._sent_script(keys=self._window)

    def throttled(self, *, sent_at: float) -> None:
        return None

    async def close(self) -> None:
        await self._redis.aclose()


def limiter_build(*, redis_url: str, scope: str, rpm: float | None, tpm: float | None) -> "Limiter":
    """The shared limiter when Redis is configured, the in-process one otherwise; a learnt one
    when no limit is declared."""
    if not rpm and not tpm:
        return LearntLimiter()
    if redis_url:
        return RedisLimiter(url=redis_url, scope=scope, rpm=rpm, tpm=tpm)
    return LocalLimiter(rpm=rpm, tpm=tpm)
