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
"""

import redis as _library  # noqa: F401 (imported here, before the fork; see above)
from django.core.cache.backends import redis


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
