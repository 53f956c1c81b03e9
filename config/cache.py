"""Django's Redis cache, keeping one Redis client per connection pool.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` for every cache call; building one
registers its response callbacks anew, which cost about as much CPU as the call itself
(``benchmarks/cache_calls.py``). Every request with a session cookie reads the session from
the cache, and the last rating of a unit asks it who listens for webhooks twice. A client
shares its pool's connections safely between threads, so one is kept per pool.

The client library is imported with this module, not by the first call (Django's client
imports it then): ``heartbench serve`` builds the cache before it forks its workers
(``config.cli.urls_load``), so no worker's first unit completed or session read imports it
with the GIL held (about 0.3 s, every thread of the worker waiting; docs/benchmarks.md).

A cache that is down is an empty cache: every call answers as a miss, logged once per outage
(DESIGN: caches and the broker are optimisations; never a 5xx for a failing service).
"""

import logging
import time

import redis as _library  # imported here, before the fork; see above
from django.core.cache.backends import redis

log = logging.getLogger("heartbench.cache")
# What a dead or unreachable server raises (redis-py wraps most socket errors, not all).
_FAILURES = (_library.RedisError, OSError)
DOWN_SECONDS = 5.0


class _Client(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _Client
        self._down_until = 0.0  # monotonic time until which the cache is taken as down

    # --- a cache that is down is an empty cache (DESIGN: caches are optimisations) ---------
    #
    # Every call that fails on the connection answers as a miss would, and for the next
    # DOWN_SECONDS the cache is not asked at all: a request goes on to the database at once
    # instead of waiting on a dead socket each call. One warning per outage in the log.

    def _guarded(self, name, fallback, *args, **kwargs):
        if time.monotonic() < self._down_until:
            return fallback
        try:
            answer = getattr(super(), name)(*args, **kwargs)
        except _FAILURES as exc:
            if not self._down_until:
                log.warning("the cache is unreachable (%s); going on without it", exc)
            self._down_until = time.monotonic() + DOWN_SECONDS
            return fallback
        if self._down_until:
            log.info("the cache is reachable again")
            self._down_until = 0.0
        return answer

    def get(self, key, default=None, version=None):
        return self._guarded("get", default, key, default, version)

    def get_many(self, keys, version=None):
        return self._guarded("get_many", {}, keys, version)

    def has_key(self, key, version=None):
        return self._guarded("has_key", False, key, version)

    def add(self, key, value, timeout=redis.DEFAULT_TIMEOUT, version=None):
        return self._guarded("add", False, key, value, timeout, version)

    def set(self, key, value, timeout=redis.DEFAULT_TIMEOUT, version=None):
        return self._guarded("set", None, key, value, timeout, version)

    def set_many(self, data, timeout=redis.DEFAULT_TIMEOUT, version=None):
        return self._guarded("set_many", [], data, timeout, version)

    def touch(self, key, timeout=redis.DEFAULT_TIMEOUT, version=None):
        return self._guarded("touch", False, key, timeout, version)

    def incr(self, key, delta=1, version=None):
        return self._guarded("incr", 0, key, delta, version)

    def delete(self, key, version=None):
        return self._guarded("delete", False, key, version)

    def delete_many(self, keys, version=None):
        return self._guarded("delete_many", None, keys, version)

    def clear(self):
        return self._guarded("clear", None)
