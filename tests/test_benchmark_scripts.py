"""The micro-benchmarks of issue 16 run whole and print their tables (tiny counts)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(script: str, *args: str, env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if line.startswith("| ")]


def test_row_inserts_compares_both_methods_on_the_embedded_database():
    rows = run("row_inserts.py", "--calls", "3", env={"DATABASE_URL": ""})
    names = [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]]
    assert names == ["labels", "gold labels", "peer agreement"]
    assert all(float(row.split(" | ")[-1].rstrip(" |")) > 0 for row in rows[1:])


def test_cache_calls_compares_both_backends(redis_url):
    rows = run("cache_calls.py", "--calls", "5", env={"REDIS_URL": redis_url})
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]] == [
        "get",
        "get, missing",
        "set",
    ]
