"""Pause a client's requests while its endpoint is down, instead of spending their retries.

Per-request retries are for one request's bad luck. When the endpoint itself is gone (a
restart, a network cut, a gateway answering 5xx to everything), retrying every request with
back-off only burns their attempts in parallel and ends the run in error verdicts. So the
client counts consecutive outage-like failures across all its requests; past a threshold the
circuit opens: nothing is sent, one waiting request at a time goes out as a probe with its own
back-off, and the first answer of any kind closes the circuit and lets everyone through.
Failures while the circuit is open do not count against a request's attempts. Waiting is
bounded by ``max_outage``; after that every request fails with the reason.

A refused or reset connection says the endpoint is down whatever was asked, so it counts at
once; a 5xx or a timeout may be one prompt's problem, so those only open the circuit when they
come from at least two different requests. An endpoint that never answered is not waited for:
the client refuses the run at once (``benchmark.llm.client.EndpointRefused``). While waiting the
breaker says so at least every ``notice_every`` seconds.
"""

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BreakerPolicy:
    threshold: int = 5  # consecutive outage-like failures that open the circuit
    probe_base: float = 1.0  # first wait before a probe, doubling up to probe_cap
    probe_cap: float = 60.0
    max_outage: float = 1800.0  # give up after the endpoint has been down this long
    notice_every: float = 30.0  # say so at least this often while waiting


class EndpointDown(RuntimeError):
    """The endpoint stayed unreachable for longer than the policy waits."""


class Breaker:
    def __init__(
        self,
        policy: BreakerPolicy,
        *,
        name: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self.name = name
        self._clock = clock
        self._streak = 0
        self._streak_requests: set[int] = set()
        self._streak_connect = False
        self.opened_at: float | None = None
        self._next_probe = 0.0
        self._probe_wait = policy.probe_base
        self._probing = False
        self._noticed_at = 0.0
        self.outages = 0  # times the circuit opened; read for accounting and by tests
        self.probes = 0

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None

    @property
    def lone_failure(self) -> bool:
        """At most one outage-like failure since the endpoint last answered: bad luck, not an
        outage (the client retries such a failure at once)."""
        return self._streak <= 1

    async def admit(self) -> bool:
        """Wait until a request may be sent; True when it goes out as the circuit's probe."""
        while self.opened_at is not None:
            now = self._clock()
            if now - self.opened_at > self.policy.max_outage:
                raise EndpointDown(
                    f"endpoint unreachable for {now - self.opened_at:.0f}s "
                    f"(gave up after max_outage {self.policy.max_outage:g}s)"
                )
            if now - self._noticed_at >= self.policy.notice_every:
                self._noticed_at = now
                logger.warning(
                    "endpoint %s still down after %.0fs; probing, giving up after %gs",
                    self.name,
                    now - self.opened_at,
                    self.policy.max_outage,
                )
            if not self._probing and now >= self._next_probe:
                self._probing = True
                self.probes += 1
                return True
            await asyncio.sleep(min(0.2, max(0.01, self._next_probe - now)))
        return False

    def succeeded(self) -> None:
        """Any answer from the endpoint (even a 4xx or a 429): it is up."""
        if self.opened_at is not None:
            logger.warning(
                "endpoint %s answers again after %.0fs; resuming",
                self.name,
                self._clock() - self.opened_at,
            )
        self._streak, self._streak_requests, self._streak_connect = 0, set(), False
        self.opened_at, self._probing, self._probe_wait = None, False, self.policy.probe_base

    def failed(self, *, request: int, connection: bool, probe: bool) -> bool:
        """Record an outage-like failure; True when it belongs to the outage, not the request."""
        now = self._clock()
        if self.opened_at is not None:
            if probe:
                self._probing = False
                self._next_probe = now + self._probe_wait
                self._probe_wait = min(self.policy.probe_cap, self._probe_wait * 2)
            return True
        self._streak += 1
        self._streak_requests.add(request)
        self._streak_connect |= connection
        if self._streak < self.policy.threshold:
            return False
        if not self._streak_connect and len(self._streak_requests) < 2:
            return False  # one prompt failing over and over is that prompt's problem
        self.opened_at = self._noticed_at = now
        self.outages += 1
        self._next_probe = now + self._probe_wait
        logger.warning(
            "endpoint %s looks down (%d failures in a row); pausing requests, probing with "
            "back-off for up to %gs",
            self.name,
            self._streak,
            self.policy.max_outage,
        )
        return True
