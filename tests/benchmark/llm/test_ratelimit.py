import asyncio
import gc
import multiprocessing
import time

import pytest

from benchmark.llm.fake_server import FakeLLM, collector_paused
from benchmark.llm.ratelimit import LocalLimiter, RedisLimiter
from benchmark.llm.ratelimit_math import (
    WINDOW_POLL,
    WINDOW_SECONDS,
    bucket_new,
    buckets_take,
    window_limit,
    window_wait,
)
from tests.builders.llm_client import ask_many


def test_the_bucket_clock_never_moves_into_the_future():
    bucket = bucket_new(per_minute=60, now=100.0)  # 1/s, capacity 1
    (bucket,), wait = buckets_take((bucket,), (1,), now=100.0)
    assert wait == 0 and bucket.level == 0
    (bucket,), wait = buckets_take((bucket,), (1,), now=100.5)
    assert wait == pytest.approx(0.5) and bucket.updated == 100.5
    # A waiting caller does not delay anyone: at 101.0 a unit is there.
    (bucket,), wait = buckets_take((bucket,), (1,), now=101.0)
    assert wait == 0


def test_both_buckets_or_neither():
    now = 0.0
    buckets = (bucket_new(per_minute=600, now=now), bucket_new(per_minute=600, now=now))
    buckets, wait = buckets_take(buckets, (1, 8), now=now)  # each holds 10
    assert wait == 0
    buckets, wait = buckets_take(buckets, (1, 5), now=now)  # tokens short: nothing taken
    assert wait == pytest.approx(3 / 10) and buckets[0].level == 9 and buckets[1].level == 2


def test_a_request_bigger_than_the_bucket_goes_through_once_full():
    bucket = bucket_new(per_minute=60, now=0.0)
    (bucket,), wait = buckets_take((bucket,), (5,), now=0.0)
    assert wait == 0 and bucket.level == -4


def test_the_window_allows_the_limit_in_any_second_and_says_when_the_next_may_go():
    assert window_limit(3600) == 60 and window_limit(90) == 1 and window_limit(30) == 1
    sent = [10.0, 10.2, 10.5]
    span = WINDOW_SECONDS
    assert window_wait(sent, limit=4, now=10.6, span=span) == 0
    # The next may go when 10.0 leaves the window, or with a limit of 2 when 10.2 does.
    assert window_wait(sent, limit=3, now=10.6, span=span) == pytest.approx(span - 0.6)
    assert window_wait(sent, limit=2, now=10.6, span=span) == pytest.approx(span - 0.4)
    assert window_wait(sent, limit=3, now=10.0 + span, span=span) == 0  # 10.0 is out
    # Requests let go and not yet written will be in the window: they take its room.
    assert window_wait(sent, limit=4, pending=1, now=10.6, span=span) == pytest.approx(span - 0.6)
    assert window_wait(sent, limit=4, pending=4, now=10.6, span=span) == WINDOW_POLL


def busiest_second(fake: FakeLLM) -> int:
    """The most requests the fake endpoint received in any one second."""
    arrivals = sorted(r.started for r in fake.requests)
    return max(sum(1 for t in arrivals[i:] if t < start + 1.0) for i, start in enumerate(arrivals))


# The client declares 9 a second; the endpoint, counting as providers do, refuses a request past
# 10 in the last second. The one request of room absorbs the endpoint's own clock (a busy
# machine logs a request late when it does not schedule this process), not the client's: a
# bucket alone lets its burst and a second's refill through in one second, 18 here.
DECLARED_RPM = 540
DECLARED_PER_SECOND = 9


def assert_kept_the_limit(fake: FakeLLM) -> None:
    assert fake.count(fault="over_limit") == 0, fake.stats()
    assert busiest_second(fake) >= DECLARED_PER_SECOND  # and the limit is used, not undershot


@pytest.mark.parametrize("latency", [0.0, 0.3])
def test_a_declared_limit_is_never_exceeded_in_any_second(latency):
    with FakeLLM(limit_per_second=10, latency=latency) as fake:
        ask_many(fake, limiter=LocalLimiter(rpm=DECLARED_RPM, tpm=None), n=35, concurrency=8)
        assert_kept_the_limit(fake)


def test_a_declared_limit_shared_through_redis_is_never_exceeded_in_any_second(redis_url):
    with FakeLLM(limit_per_second=10, latency=0.3) as fake:
        limiter = RedisLimiter(url=redis_url, scope="window-test", rpm=DECLARED_RPM, tpm=None)
        ask_many(fake, limiter=limiter, n=35, concurrency=8)
        assert_kept_the_limit(fake)


# Each is asked again by the client: a 500 at once when it is a lone failure, a garbled 200
# and a dropped connection (which the endpoint counted) after a back-off.
RETRIED = ("server_error", "bad_json", "disconnect")


def faulty_endpoint(latency: float) -> FakeLLM:
    return FakeLLM(limit_per_second=10, latency=latency, fault_rate=0.3, fault_mix=RETRIED, seed=5)


def assert_retries_kept_the_limit(fake: FakeLLM) -> None:
    assert all(fake.count(fault=fault) > 0 for fault in RETRIED), fake.stats()
    assert_kept_the_limit(fake)


@pytest.mark.parametrize("latency", [0.0, 0.3])
def test_retries_and_failed_requests_stay_inside_the_window(latency):
    with faulty_endpoint(latency) as fake:
        ask_many(fake, limiter=LocalLimiter(rpm=DECLARED_RPM, tpm=None), n=35, concurrency=8)
        assert_retries_kept_the_limit(fake)


def test_retries_stay_inside_the_window_shared_through_redis(redis_url):
    with faulty_endpoint(0.3) as fake:
        limiter = RedisLimiter(
            url=redis_url, scope="window-faults-test", rpm=DECLARED_RPM, tpm=None
        )
        ask_many(fake, limiter=limiter, n=35, concurrency=8)
        assert_retries_kept_the_limit(fake)


def test_the_collector_is_paused_only_inside_the_block():
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()


def measure(limiter_factory, n: int) -> float:
    async def go():
        limiter = limiter_factory()

        async def send() -> None:
            await limiter.acquire(tokens=1)
            await limiter.sent()

        start = time.monotonic()
        await asyncio.gather(*(send() for _ in range(n)))
        if hasattr(limiter, "close"):
            await limiter.close()
        return time.monotonic() - start

    return asyncio.run(go())


def test_local_limiter_paces_requests():
    elapsed = measure(lambda: LocalLimiter(rpm=1200, tpm=None), 30)  # 20 at once, 10 a second on
    assert 0.9 <= elapsed <= 1.6


def _worker(url: str, n: int, start, out) -> None:
    # Both processes start asking together: a late starter would find the bucket refilled
    # and make a global limit look local.
    start.wait(timeout=60)
    out.put(measure(lambda: RedisLimiter(url=url, scope="shared-test", rpm=1200, tpm=None), n))


def test_two_processes_share_one_redis_limit(redis_url):
    # 20 req/s in any second: one process alone needs ~1 s for 30 requests (20 at once, 10 a
    # second later); two processes sharing the limit need ~2 s for 30 each: the limit is global.
    # (A loaded machine slows both alike, so the shared run is compared with the one alone.)
    alone = measure(lambda: RedisLimiter(url=redis_url, scope="solo-test", rpm=1200, tpm=None), 30)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    start = ctx.Barrier(2)
    procs = [ctx.Process(target=_worker, args=(redis_url, 30, start, out)) for _ in range(2)]
    for proc in procs:
        proc.start()
    times = [out.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(10)
    assert max(times) >= 1.8 and max(times) - alone >= 0.5, (alone, times)
