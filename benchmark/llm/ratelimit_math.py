"""Token-bucket arithmetic for requests-per-minute and tokens-per-minute limits (pure).

The bucket refills continuously at ``rate`` units per second up to ``capacity``; its clock only
ever moves to "now". (The upstream limiter sets its refill time to a moment in the future while
a caller waits, so every other caller sees negative elapsed time and stalls.)

A request costing more than the whole capacity (a very long prompt under a small TPM) is let
through once the bucket is full, leaving it in debt, rather than waiting forever.

A bucket holding a second's worth lets up to two seconds' worth through in one second (the
full bucket and its refill), so a declared requests-per-minute limit is also kept as a sliding
window: at most ``window_limit(rpm)`` requests in any one second, as a provider counts them
(over ``WINDOW_SECONDS``, for the way to the endpoint).
"""

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Bucket:
    rate: float  # units per second
    capacity: float
    level: float
    updated: float  # monotonic seconds of the last refill


def bucket_new(*, per_minute: float, now: float, burst_seconds: float = 1.0) -> Bucket:
    """A full bucket for a per-minute limit; the burst is what may go out at once."""
    rate = per_minute / 60.0
    capacity = max(1.0, rate * burst_seconds)
    return Bucket(rate=rate, capacity=capacity, level=capacity, updated=now)


def bucket_refill(bucket: Bucket, *, now: float) -> Bucket:
    elapsed = max(0.0, now - bucket.updated)
    level = min(bucket.capacity, bucket.level + elapsed * bucket.rate)
    return Bucket(bucket.rate, bucket.capacity, level, max(now, bucket.updated))


def buckets_take(
    buckets: tuple[Bucket, ...], costs: tuple[float, ...], *, now: float
) -> tuple[tuple[Bucket, ...], float]:
    """Take ``costs`` from every bucket at once, or none; return the buckets and a wait.

    A wait of 0 means the units were taken; otherwise nothing was taken and the caller should
    try again after that many seconds.
    """
    refilled = tuple(bucket_refill(b, now=now) for b in buckets)
    wait = 0.0
    for bucket, cost in zip(refilled, costs, strict=True):
        need = min(cost, bucket.capacity)
        if bucket.level < need:
            wait = max(wait, (need - bucket.level) / bucket.rate)
    if wait > 0:
        return refilled, wait
    taken = tuple(
        Bucket(b.rate, b.capacity, b.level - cost, b.updated)
        for b, cost in zip(refilled, costs, strict=True)
    )
    return taken, 0.0


def window_limit(per_minute: float) -> int:
    """Requests allowed in any one second under a per-minute limit (at least one)."""
    return max(1, int(per_minute // 60))


# The window is kept a little longer than a second on the send times: a request is counted
# where it arrives, a little after it is written and not always by the same delay, so two
# requests written a second apart can arrive within one second (1.02 let 61 through in one
# second under a limit of 60 at load 8).
WINDOW_SECONDS = 1.05
WINDOW_POLL = 0.01  # seconds: how often to look again while the window is all in flight


def window_wait(sent: Sequence[float], *, limit: int, pending: int = 0, now: float) -> float:
    """Seconds until one more request may go without making more than ``limit`` in any second
    (``sent``: the send times, oldest first, of at least the last ``WINDOW_SECONDS``;
    ``pending``: requests let go and not sent yet, which will be in the window); 0 when it may
    go now."""
    free = limit - pending
    if free <= 0:
        return WINDOW_POLL
    recent = len(sent) - bisect.bisect_right(sent, now - WINDOW_SECONDS)
    return 0.0 if recent < free else sent[-free] + WINDOW_SECONDS - now


# A rate learnt from the endpoint's 429s when no limit was declared.
LEARN_WINDOW = 1.0  # seconds: the sends counted at a 429, and the 429s that count as one
LEARN_MARGIN = 0.95  # pace at this share of what was being sent when the endpoint said no
LEARN_GROWTH = 0.05  # and probe upwards by this share per second without a 429
LEARN_BURST = 0.1  # seconds of the learnt rate that may go out at once


@dataclass(frozen=True)
class Pace:
    rate: float | None = None  # requests per second; None until the first 429
    since: float = 0.0  # monotonic seconds of the last cut


def pace_throttled(pace: Pace, *, sent_in_window: int, now: float) -> Pace:
    """The pace after a 429: ``LEARN_MARGIN`` of the rate the requests were going out at.

    The 429s of one window are one signal (the requests in flight when the limit was crossed
    all come back refused): the rate is cut at most once per ``LEARN_WINDOW``.
    """
    if pace.rate is not None and now - pace.since < LEARN_WINDOW:
        return pace
    sending = sent_in_window / LEARN_WINDOW
    current = pace_rate(pace, now=now)
    if current is not None:
        sending = min(sending, current)
    return Pace(rate=max(1.0 / LEARN_WINDOW, LEARN_MARGIN * sending), since=now)


def pace_rate(pace: Pace, *, now: float) -> float | None:
    """The learnt rate now: the cut one, grown by ``LEARN_GROWTH`` per second since."""
    if pace.rate is None:
        return None
    return pace.rate * (1 + LEARN_GROWTH * max(0.0, now - pace.since))


def pace_bucket(rate: float, *, sent_in_window: int, now: float) -> Bucket:
    """The bucket at a newly cut pace, as if it had been kept over the last window: what was
    sent past it in the window is owed (the endpoint still counts those requests)."""
    capacity = max(1.0, rate * LEARN_BURST)
    return Bucket(rate, capacity, min(capacity, rate * LEARN_WINDOW - sent_in_window), now)
