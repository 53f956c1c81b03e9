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


def window_wait(
    sent: Sequence[float],
    *,
    limit: int,
    pending: int = 0,
    now: float,
    span: float,
) -> float:
    """Seconds until one more request may go without making more than ``limit`` in any
    ``span`` seconds (``sent``: the send times, oldest first, of at least the last ``span``;
    ``pending``: requests let go and not sent yet, which will be in the window); 0 when it may
    go now."""
    free = limit - pending
    if free <= 0:
        return WINDOW_POLL
    recent = len(sent) - bisect.bisect_right(sent, now - span)
    return 0.0 if recent < free else sent[-free] + span - now


# A limit learnt from the endpoint's 429s when none was declared.
LEARN_WINDOW = 1.0  # seconds: the sends counted at a 429, and the 429s that count as one
LEARN_PROBE_AFTER = 2.0  # seconds without a 429 before the learnt limit is probed upwards
LEARN_GROWTH = 0.05  # by this share of it per second
# A later 429 cuts the limit to what was taken, but by at most this share of it: a refusal
# while fewer went out than the limit says more about the endpoint's clock and ours being a
# little apart than about its limit (a limit that really fell is met again within a second).
LEARN_MAX_CUT = 0.1


@dataclass(frozen=True)
class Pace:
    limit: float | None = None  # requests per window the endpoint takes; None until a 429
    since: float = 0.0  # monotonic seconds of the last cut


def pace_throttled(pace: Pace, *, taken: int, now: float) -> Pace:
    """The pace after a 429: the requests the endpoint took in the window before refusing.

    The 429s of one window are one signal (the requests in flight when the limit was crossed
    all come back refused): the limit is cut at most once per ``LEARN_WINDOW``, by at most
    ``LEARN_MAX_CUT`` of it, and never raised by a 429.
    """
    if pace.limit is not None and now - pace.since < LEARN_WINDOW:
        return pace
    current = pace_limit(pace, now=now)
    limit = taken if current is None else min(current, max(taken, (1 - LEARN_MAX_CUT) * current))
    return Pace(limit=max(1.0, limit), since=now)


def pace_limit(pace: Pace, *, now: float) -> float | None:
    """The learnt limit now: the cut one, kept for ``LEARN_PROBE_AFTER`` seconds, then grown by
    ``LEARN_GROWTH`` per second in case the endpoint takes more."""
    if pace.limit is None:
        return None
    probing = max(0.0, now - pace.since - LEARN_PROBE_AFTER)
    return pace.limit * (1 + LEARN_GROWTH * probing)
