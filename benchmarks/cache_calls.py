"""CPU of one cache call on Redis: Django's ``RedisCache`` against ``config.cache.RedisCache``.

    python -m tests.services --redis -- .venv/bin/python benchmarks/cache_calls.py

Both backends talk to the Redis at ``REDIS_URL``; the calls alternate (a get of a cached
entry like the webhooks' list of endpoints, a get of a missing key, a set) ``--calls`` times
each, so the machine's noise falls on both. Printed: the process's CPU ms per call, median and
p90, and the ratio of the medians.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    if not url:
        sys.exit("needs Redis: run under `python -m tests.services --redis`")
    sys.path.append(str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

    from config.cache import RedisCache

    backends = {
        "django": DjangoRedisCache(url, {"KEY_PREFIX": "bench-django"}),
        "kept client": RedisCache(url, {"KEY_PREFIX": "bench-kept"}),
    }
    listening = [(1, ["unit.completed", "gold.ready"]), (2, ["study.closed"])]
    calls = {
        "get": lambda cache: cache.get("listening"),
        "get, missing": lambda cache: cache.get("nothing-here"),
        "set": lambda cache: cache.set("listening", listening, timeout=60),
    }
    cpu = {(call, name): [] for call in calls for name in backends}
    for _ in range(args.calls):
        for call, send in calls.items():
            for name, cache in backends.items():
                start = time.process_time()
                send(cache)
                cpu[call, name].append(time.process_time() - start)
    for cache in backends.values():
        cache.delete("listening")
    from expert_requests import machine, ms_median_p90

    print(machine(f"{args.calls} calls each"))
    print("| call | Django's RedisCache CPU ms median / p90 | kept client | ratio |")
    print("|---|---|---|---|")

    def ms(values: list[float]) -> str:
        return " / ".join(ms_median_p90(values, digits=3))

    for call in calls:
        django_cpu, kept = cpu[call, "django"], cpu[call, "kept client"]
        ratio = statistics.median(kept) / statistics.median(django_cpu)
        print(f"| {call} | {ms(django_cpu)} | {ms(kept)} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
