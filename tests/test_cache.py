"""The Redis cache backend (``config.cache``) against a real Redis."""

import threading

import pytest

from config.cache import RedisCache


@pytest.fixture
def cache(redis_url):
    backend = RedisCache(redis_url, {"KEY_PREFIX": "test-cache"})
    yield backend
    backend.clear()


def test_it_stores_reads_counts_and_forgets_as_django_s_redis_cache(cache):
    assert cache.get("listening") is None
    cache.set("listening", [(1, ["gold.ready"])], timeout=60)
    assert cache.get("listening") == [(1, ["gold.ready"])]
    assert cache.add("listening", "other") is False
    cache.set("count", 1)
    assert cache.incr("count", 2) == 3
    cache.delete("listening")
    assert cache.get("listening", "gone") == "gone"
    assert cache.get_many(["count", "listening"]) == {"count": 3}


def test_one_client_serves_every_call_and_every_thread(cache):
    first = cache._cache.get_client()
    assert cache._cache.get_client(write=True) is first
    seen, errors = [], []

    def work(n: int) -> None:
        try:
            for i in range(50):
                cache.set(f"k{n}", i)
                assert cache.get(f"k{n}") == i
            seen.append(cache._cache.get_client())
        except AssertionError as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors
    assert all(client is first for client in seen)


def test_a_cache_that_is_down_is_a_miss_logged_once_never_an_error(caplog):
    """DESIGN: caches are optimisations. With Redis down every call answers as an empty cache
    would (get → default, add → False, set/delete → nothing), fast, and says so in the log
    once per outage; a request goes on to the database."""
    import logging
    import time

    from tests.services import free_port

    down = RedisCache(f"redis://127.0.0.1:{free_port()}/0", {"KEY_PREFIX": "down"})
    with caplog.at_level(logging.WARNING, logger="heartbench.cache"):
        started = time.monotonic()
        for _ in range(50):
            assert down.get("listening") is None
            assert down.get("listening", "gone") == "gone"
            assert down.add("count", 0) is False
            down.set("count", 1)
            assert down.incr("count") == 0
            down.delete("listening")
            assert down.get_many(["a", "b"]) == {}
            assert down.has_key("a") is False
        assert time.monotonic() - started < 2
    warnings = [r for r in caplog.records if r.name == "heartbench.cache"]
    assert len(warnings) == 1 and "cache is unreachable" in warnings[0].getMessage()
