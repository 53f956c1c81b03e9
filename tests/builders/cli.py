"""Running the `heartbench` command line in a subprocess on a seeded SQLite file of its own."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import sqlite_migrated

CLI = shutil.which("heartbench", path=str(Path(sys.executable).parent)) or "heartbench"


def run_tool(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tests.benchmark.llm.dbtool", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def seeded_env(path: Path, *, model: str, cases: int, api_key: str = "test-key") -> dict:
    """The environment of a CLI subprocess on a SQLite file of its own at ``path``, seeded
    with ``cases`` cases that ``model`` answered; no Redis (its limits and cache in process)."""
    env = {**os.environ, "DATABASE_URL": sqlite_migrated(path), "HEARTBENCH_API_KEY": api_key}
    env.pop("REDIS_URL", None)
    run_tool(env, "seed", "--model", model, "--cases", str(cases))
    return env


def heartbench(env: dict, *args: str, **streams) -> subprocess.CompletedProcess:
    streams = streams or {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.run([CLI, *args], env=env, text=True, timeout=120, **streams)
