import asyncio
import multiprocessing
import time

import pytest

from benchmark.llm.ratelimit import LocalLimiter, RedisLimiter
from benchmark.llm.ratelimit_math import bucket_new, buckets_take


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


def measure(limiter_factory, n: int) -> float:
    async def go():
        limiter = limiter_factory()
        start = time.monotonic()
        await asyncio.gather(*(limiter.acquire(tokens=1) for _ in range(n)))
        if hasattr(limiter, "close"):
            await limiter.close()
        return time.monotonic() - start

    return asyncio.run(go())


def test_local_limiter_paces_requests():
    elapsed = measure(lambda: LocalLimiter(rpm=1200, tpm=None), 30)  # 20/s, burst 20
    assert 0.4 <= elapsed <= 1.5


def _worker(url: str, n: int, start, out) -> None:
    # Both processes start asking together: a late starter would find the bucket refilled
    # and make a global limit look local.
    start.wait(timeout=60)
    out.put(measure(lambda: RedisLimiter(url=url, scope="shared-test", rpm=1200, tpm=None), n))


def test_two_processes_share_one_redis_limit(redis_url):
    # 20 req/s with a burst of 20: one process alone needs ~0.5 s for 30 requests; two
    # processes sharing the limit need ~2 s for 30 each, i.e. the limit is global.
    alone = measure(lambda: RedisLimiter(url=redis_url, scope="solo-test", rpm=1200, tpm=None), 30)
    assert alone < 1.2
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    start = ctx.Barrier(2)
    procs = [ctx.Process(target=_worker, args=(redis_url, 30, start, out)) for _ in range(2)]
    for proc in procs:
        proc.start()
    times = [out.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(10)
    assert max(times) >= 1.8, times
