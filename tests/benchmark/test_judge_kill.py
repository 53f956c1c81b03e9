"""SIGKILL a real `heartbench judge` halfway, start it again: every verdict once, little re-sent.

The CLI runs in a subprocess on its own database (a SQLite file, and PostgreSQL when the test
run has one) against our fake endpoint running in this process, whose request log shows what
was sent before and after the kill.
"""

import json
import os
import signal
import subprocess
import time
from collections import Counter

import pytest

from benchmark.llm.fake_server import FakeLLM, fake_verdict
from tests.builders.cli import CLI, run_tool
from tests.conftest import require, sqlite_migrated
from tests.services import scratch_database

pytestmark = pytest.mark.slow

CASES = 40
CONCURRENCY = 4


def judge_command(fake: FakeLLM) -> list[str]:
    return [
        CLI,
        "judge",
        "--model",
        "victim",
        "--judge-model",
        "fake-judge",
        "--base-url",
        fake.base_url,
        "--concurrency",
        str(CONCURRENCY),
        "--no-progress",
        "--timeout",
        "5",
    ]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield sqlite_migrated(tmp_path / "kill.sqlite3")
        return
    base = os.environ.get("DATABASE_URL", "")
    require(base.startswith("postgres"), "needs PostgreSQL: run under tests.services --postgres")
    with scratch_database(base, prefix="heartbench_kill") as url:
        yield url


def test_killed_run_resumes_with_every_verdict_once(database_url):
    env = {**os.environ, "DATABASE_URL": database_url, "HEARTBENCH_API_KEY": "test-key"}
    env.pop("REDIS_URL", None)
    run_tool(env, "seed", "--model", "victim", "--cases", str(CASES))
    with FakeLLM(latency=0.15) as fake:
        first = subprocess.Popen(
            judge_command(fake), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 60
        while fake.count() < CASES // 2 and time.monotonic() < deadline:
            assert first.poll() is None, first.communicate()
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        before = [r.key for r in fake.requests]
        assert CASES // 2 <= len(before) < CASES, "kill must land halfway"
        partial = json.loads(run_tool(env, "report", "--model", "victim"))
        assert 0 < partial["verdicts"] < CASES * 4

        second = subprocess.run(
            judge_command(fake), env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert second.returncode == 0, second.stderr
        after = [r.key for r in fake.requests][len(before) :]

        report = json.loads(run_tool(env, "report", "--model", "victim"))
        assert report["verdicts"] == report["items"] == CASES * 4
        assert report["per_item_max"] == 1 and len(report["runs"]) == 1
        assert report["states"] == {
            text: "met" if fake_verdict(text) else "not_met" for text in report["states"]
        }
        repeated = set(before) & set(after)
        # Lost: the units asking (at most CONCURRENCY) and those whose verdicts were waiting
        # for their commit (the engine allows as many again).
        assert len(repeated) <= 2 * CONCURRENCY, f"{len(repeated)} requests re-sent"
        assert max(Counter(before + after).values()) <= 2
        assert len(set(before) | set(after)) == CASES

        third = subprocess.run(
            judge_command(fake), env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert third.returncode == 0 and "nothing sent" in third.stdout
        assert len(fake.requests) == len(before) + len(after)
