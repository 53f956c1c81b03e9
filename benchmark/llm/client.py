"""One asynchronous client for every OpenAI-compatible ``/chat/completions`` endpoint.

Retry policy, all bounded: a 429 waits for ``retry-after-ms`` or ``Retry-After`` (else an
exponential back-off) plus jitter, and tells the limiter (which learns the endpoint's rate when
none was declared); 5xx, timeouts and connection errors back off exponentially with jitter,
except that the first retry of a lone failure (the endpoint answered every other request since)
goes out at once: a run's last requests are its tail, and one unlucky reply should not add a
back-off to it. Both stop after ``max_attempts`` requests or once ``max_total_wait`` seconds of
waiting would be exceeded, and then raise :class:`RequestFailed` with the reason. A 400/422 that
names ``response_format`` turns structured output off for this client and the request is sent
again without it. While the endpoint as a whole is down, a circuit breaker
(:mod:`benchmark.llm.breaker`) holds every request back and probes with its own back-off, so an
outage of minutes pauses the run instead of spending the requests' attempts. What no retry can
mend (:class:`EndpointRefused`) fails at once.

The API key is only ever put in the Authorization header; it is not logged or returned.
"""

import asyncio
import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from benchmark.llm.accounting import messages_tokens
from benchmark.llm.breaker import Breaker, BreakerPolicy, EndpointDown
from benchmark.llm.ratelimit import LearntLimiter, Limiter

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


class RequestFailed(RuntimeError):
    """The endpoint did not give a usable answer within the retry bounds."""


class EndpointRefused(RequestFailed):
    """The endpoint refuses the run as it is configured, so no request can succeed and none is
    retried: the key is refused (401, 403), the model is unknown (404 before any answer), or
    nothing listens at the address before it ever answered (connection refused, no such host).
    An endpoint that answered and then went away is an outage, for the breaker to wait out."""


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    parameters: dict = field(default_factory=dict)  # temperature, max_tokens, ...
    timeout: float = 120.0

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    max_total_wait: float = 120.0
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    breaker: BreakerPolicy = field(default_factory=BreakerPolicy)


@dataclass(frozen=True)
class Completion:
    text: str | None
    refusal: str | None
    tokens_in: int
    tokens_out: int
    attempts: int
    structured: bool


@dataclass
class Counters:
    """Requests actually sent; read by the engine for accounting and by tests."""

    calls: int = 0
    retries: int = 0


def retry_after_seconds(headers: httpx.Headers, *, now: float | None = None) -> float | None:
    """Seconds to wait as the endpoint asks: ``retry-after-ms`` (milliseconds, as OpenAI's API
    sends it) before ``Retry-After`` (delta-seconds or an HTTP date); None when neither is
    usable."""
    try:
        return max(0.0, float(headers.get("retry-after-ms", "")) / 1000)
    except ValueError:
        pass
    value = headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_seconds(attempt: int, policy: RetryPolicy, rand: Callable[[], float]) -> float:
    """Exponential back-off with full jitter: uniform in [base·2^(n−1)/2, base·2^(n−1)]."""
    ceiling = min(policy.backoff_cap, policy.backoff_base * 2 ** (attempt - 1))
    return ceiling * (0.5 + 0.5 * rand())


class ChatClient:
    def __init__(
        self,
        endpoint: Endpoint,
        *,
        concurrency: int = 16,
        limiter: Limiter | None = None,
        retry: RetryPolicy | None = None,
        rand: Callable[[], float] = random.random,
        answered_before: bool = False,
    ) -> None:
        self.endpoint = endpoint
        self.limiter = limiter or LearntLimiter()
        self.retry = retry or RetryPolicy()
        self.counters = Counters()
        self.structured_ok: bool | None = None  # unknown until the endpoint answers
        self._answered = answered_before  # any HTTP reply yet: the address is right
        self._served = answered_before  # a usable reply yet: the model and the key are right
        self.breaker = Breaker(self.retry.breaker, name=endpoint.base_url)
        self._rand = rand
        # One connection per client, up to ``concurrency`` clients, instead of one pool of
        # ``concurrency`` connections: httpcore's pool scans every connection (twice over for
        # the idle ones, each checked with a system call) whenever a request enters or leaves
        # it, which at 32 connections cost the event loop more than the request itself.
        self._connection_count = concurrency
        self._connection_options = {
            "headers": {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {},
            "timeout": httpx.Timeout(endpoint.timeout, connect=min(endpoint.timeout, 10.0)),
            "limits": httpx.Limits(max_connections=1, max_keepalive_connections=1),
        }
        self._connections: list[httpx.AsyncClient] = []
        self._idle: asyncio.LifoQueue[httpx.AsyncClient] = asyncio.LifoQueue()

    async def close(self) -> None:
        for http in self._connections:
            await http.aclose()

    async def _connection(self) -> httpx.AsyncClient:
        """An idle connection's client, a new one while fewer than ``concurrency`` are open,
        else the next to come back."""
        if self._idle.empty() and len(self._connections) < self._connection_count:
            if not self._connections:
                # The certificates, loaded once (50 ms) and shared; none for plain HTTP (a
                # server on the machine or the network), whose requests nothing would check.
                secure = self.endpoint.url.startswith("https:")
                self._connection_options["verify"] = secure and httpx.create_ssl_context()
            self._connections.append(httpx.AsyncClient(**self._connection_options))
            return self._connections[-1]
        return await self._idle.get()

    def payload(self, messages: list[dict], response_format: dict | None) -> dict:
        body = {"model": self.endpoint.model, "messages": messages, **self.endpoint.parameters}
        if response_format is not None and self.structured_ok is not False:
            body["response_format"] = response_format
        return body

    async def complete(
        self,
        messages: list[dict],
        *,
        response_format: dict | None = None,
        tokens_in: int | None = None,
    ) -> Completion:
        """Send one chat request, retrying within the policy; raise RequestFailed if it fails.
        ``tokens_in``: the messages' estimate (``messages_tokens``) when the caller has it."""
        waited = 0.0
        attempt = 0
        estimate = messages_tokens(messages) if tokens_in is None else tokens_in
        estimate += int(self.endpoint.parameters.get("max_tokens", 0) or 0)
        request = id(messages)
        while True:
            attempt += 1
            try:
                probe = await self.breaker.admit()
            except EndpointDown as exc:
                raise RequestFailed(str(exc)) from exc
            body = self.payload(messages, response_format)
            await self.limiter.acquire(tokens=max(1, estimate))
            self.counters.calls += 1
            if attempt > 1:
                self.counters.retries += 1
            wait, reason, outage, connection = None, "", True, False
            try:
                reply, sent_at = await self._post(body)
            except httpx.TimeoutException:
                reason = f"timed out after {self.endpoint.timeout:g}s"
            except httpx.TransportError as exc:
                if not self._answered and isinstance(exc, httpx.ConnectError):
                    raise EndpointRefused(
                        f"cannot reach {self.endpoint.url}: {exc or type(exc).__name__}"
                    ) from exc
                reason = f"connection error: {type(exc).__name__}"
                connection = True
            else:
                self._answered = True
                refused = reply.status_code in (401, 403) or (
                    reply.status_code == 404 and not self._served
                )
                if refused:
                    raise EndpointRefused(
                        f"{self.endpoint.url} answered HTTP {reply.status_code}: {reply.text[:300]}"
                    )
                outage = reply.status_code >= 500
                if not outage:
                    self.breaker.succeeded()
                if reply.status_code == 200:
                    try:
                        completion = self._completion(reply, attempt, "response_format" in body)
                        self._served = True
                        return completion
                    except ValueError as exc:  # a garbled body is a transport fault: retry
                        reason = str(exc)
                else:
                    reason = f"HTTP {reply.status_code}: {reply.text[:200]}"
                if reply.status_code in (400, 422) and "response_format" in body:
                    if "response_format" in reply.text or "json_schema" in reply.text:
                        self.structured_ok = False
                        attempt -= 1  # a refused feature is not a failed attempt
                        continue
                if reply.status_code != 200 and reply.status_code not in RETRYABLE_STATUS:
                    raise RequestFailed(reason)
                if reply.status_code == 429:
                    self.limiter.throttled(sent_at=sent_at)
                    wait = retry_after_seconds(reply.headers)
                    wait = (
                        backoff_seconds(attempt, self.retry, self._rand)
                        if wait is None
                        else wait + wait * 0.25 * self._rand()
                    )
            if outage and self.breaker.failed(request=request, connection=connection, probe=probe):
                attempt -= 1  # the endpoint's outage, not this request's: admit() waits it out
                continue
            if attempt >= self.retry.max_attempts:
                raise RequestFailed(f"{reason} (gave up after {attempt} attempts)")
            if wait is None:
                at_once = attempt == 1 and self.breaker.lone_failure
                wait = 0.0 if at_once else backoff_seconds(attempt, self.retry, self._rand)
            if waited + wait > self.retry.max_total_wait:
                raise RequestFailed(
                    f"{reason} (retry wait budget {self.retry.max_total_wait:g}s spent)"
                )
            waited += wait
            await asyncio.sleep(wait)

    async def _post(self, body: dict) -> tuple[httpx.Response, float]:
        """POST ``body``, telling the limiter when it was written (or that it never was);
        return the reply and when it was written (monotonic seconds)."""
        written: float | None = None

        async def trace(event: str, info: dict) -> None:
            nonlocal written
            if event.endswith(".send_request_body.complete"):
                written = time.monotonic()
                await self.limiter.sent()

        http = await self._connection()
        try:
            reply = await http.post(self.endpoint.url, json=body, extensions={"trace": trace})
        finally:
            self._idle.put_nowait(http)
            if written is None:
                await self.limiter.sent()
        return reply, time.monotonic() if written is None else written

    def _completion(self, reply: httpx.Response, attempt: int, structured: bool) -> Completion:
        try:
            data = reply.json()
            message = data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"not a chat-completions reply: {reply.text[:200]!r}") from exc
        if structured:
            self.structured_ok = True
        usage = data.get("usage") or {}
        content = message.get("content")
        if isinstance(content, list):  # some gateways return content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return Completion(
            text=content,
            refusal=message.get("refusal"),
            tokens_in=int(usage.get("prompt_tokens") or 0),
            tokens_out=int(usage.get("completion_tokens") or 0),
            attempts=attempt,
            structured=structured,
        )
