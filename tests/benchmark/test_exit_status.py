"""The README's table of exit statuses, walked through the real `heartbench` console script in a
subprocess (its own SQLite file) against the fake endpoint; and every command read for an error
that names no status."""

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest

from benchmark.llm.fake_server import FakeLLM
from tests.builders.cli import heartbench, seeded_env

ROOT = Path(__file__).resolve().parents[2]
JUDGE = ["judge", "--model", "m", "--judge-model", "fake-judge", "--no-progress"]
QUICK = ["--timeout", "2", "--max-attempts", "1", "--max-retry-wait", "1"]
PRICED = ["--price-in", "1000", "--price-out", "1000", "--concurrency", "1", "--max-tokens", "100"]


@pytest.fixture
def env(tmp_path) -> dict:
    return seeded_env(tmp_path / "exits.sqlite3", model="m", cases=3)


def test_every_status_of_the_table(env):
    with FakeLLM() as fake:
        done = heartbench(env, *JUDGE, "--base-url", fake.base_url)
        assert done.returncode == 0, done.stderr
        again = heartbench(env, *JUDGE, "--base-url", fake.base_url, "--retry-errors")
        assert again.returncode == 0, again.stderr  # nothing left to retry is done
        assert "has no errors: nothing to retry" in again.stdout
        budget = heartbench(env, *JUDGE, "--base-url", fake.base_url, "--force", *PRICED,
                            "--max-cost", "1")  # fmt: skip
        assert budget.returncode == 3, budget.stderr
    with FakeLLM(fault_rate=1.0, fault_mix=("malformed",)) as broken:
        errors = heartbench(env, *JUDGE, "--base-url", broken.base_url, "--force", *QUICK)
        assert errors.returncode == 1, errors.stderr
        assert "ended in error" in errors.stderr
        # The summary counts the errors by kind of reason.
        assert "errors 12: 12 × no usable reply after" in errors.stdout, errors.stdout
    dataset = json.loads(heartbench(env, "leaderboard", "--format", "json").stdout)["dataset"]
    for usage in (
        ["leaderboard", "--dataset", "nope"],
        ["export-log", "--run", "99999"],
        ["study", "close", "nope"],
        ["leaderboard", "--no-such-option"],
    ):
        refused = heartbench(env, *usage)
        assert refused.returncode == 2, (usage, refused.returncode, refused.stderr)
        assert "Traceback" not in refused.stderr
    assert dataset


def test_a_reader_that_stops_early_ends_the_command_quietly(env):
    """`heartbench leaderboard | head -1`: the pipe closes under the command (here before it
    writes at all), which ends at once with the status a shell gives SIGPIPE, and no traceback."""
    read, write = os.pipe()
    os.close(read)
    try:
        ended = heartbench(
            env, "leaderboard", "--format", "json", stdout=write, stderr=subprocess.PIPE
        )
    finally:
        os.close(write)
    assert ended.returncode == 141
    assert ended.stderr == ""


def test_every_command_error_names_its_status():
    """A bare CommandError exits 1, "finished with errors"; a refusal is a UsageError (2)."""
    bare = []
    for path in sorted(ROOT.glob("*/management/commands/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "CommandError"
                and not any(keyword.arg == "returncode" for keyword in node.keywords)
            ):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == []
