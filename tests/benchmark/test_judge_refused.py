"""`heartbench judge` against an endpoint that refuses the run (nothing listening, a wrong key, an
unknown model): it stops within seconds, marks the run failed with the endpoint's words, exits
2 and advises no retry; fixed, the same command continues the run. The console script in a
subprocess on its own SQLite file, against the fake endpoint in this process."""

import json
import subprocess
import time

import pytest

from benchmark.llm.fake_server import FakeLLM
from tests.builders.cli import CLI, run_tool, seeded_env

CONCURRENCY = 4
JUDGE = [CLI, "judge", "--model", "m", "--judge-model", "fake-judge", "--no-progress",
         "--concurrency", str(CONCURRENCY)]  # fmt: skip


@pytest.fixture
def env(tmp_path) -> dict:
    return seeded_env(tmp_path / "refused.sqlite3", model="m", cases=12, api_key="right-key")


def judge(env: dict, base_url: str) -> tuple[subprocess.CompletedProcess, float]:
    began = time.monotonic()
    done = subprocess.run(
        [*JUDGE, "--base-url", base_url], env=env, capture_output=True, text=True, timeout=120
    )
    return done, time.monotonic() - began


def assert_refused(env: dict, done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "--retry-errors" not in done.stdout + done.stderr
    for word in words:
        assert word in done.stderr, done.stderr
    (run,) = json.loads(run_tool(env, "runs", "--model", "m"))
    assert run["status"] == "failed" and run["errors"] == 0  # nothing stored as an error


def test_nothing_listening_is_a_configuration_error_within_seconds(env):
    with FakeLLM() as gone:
        url = gone.base_url
    done, seconds = judge(env, url)
    assert seconds < 15, seconds  # the start-up and one refused connection, not a long wait
    assert_refused(env, done, f"cannot reach {url}/chat/completions")


@pytest.mark.parametrize(
    ("server", "words"),
    [
        ({"api_key": "another-key"}, ["HTTP 401", "Incorrect API key"]),
        ({"models": ("other-model",)}, ["HTTP 404", "`fake-judge` does not exist"]),
    ],
)
def test_a_refused_key_or_model_stops_the_run_then_the_fixed_command_continues_it(
    env, server, words
):
    with FakeLLM(**server) as refusing:
        done, _seconds = judge(env, refusing.base_url)
        sent = refusing.count()
    assert_refused(env, done, *words)
    assert sent <= CONCURRENCY  # the first requests out, never a retry of them
    with FakeLLM() as healthy:
        fixed, _seconds = judge(env, healthy.base_url)
        assert fixed.returncode == 0, fixed.stderr
        assert healthy.count() == 12
    (run,) = json.loads(run_tool(env, "runs", "--model", "m"))
    assert run["status"] == "finished" and run["done"] == run["total"]
