"""The production stack of the integration tests: gunicorn, workers, Redis, and waiting on them."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

BIN = Path(sys.executable).parent


STACKTOOL = "tests.integration.stacktool"


def wait_for(check: Callable[[], bool], *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def tool(env: dict, module: str, *args: str) -> str:
    return run(env, sys.executable, "-m", module, *args)


def run(env: dict, *args: str, timeout: float = 180) -> str:
    done = subprocess.run(
        args, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{args}: {done.stderr[-2000:]}"
    return done.stdout


class Stack:
    """The processes of one deployment, each with its own log file."""

    def __init__(self, env: dict, logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.procs: dict[str, subprocess.Popen] = {}
        self.base_url = ""

    def start(self, name: str, *args: str, env: dict | None = None) -> subprocess.Popen:
        log = (self.logs / f"{name}.log").open("w")
        # A session of its own, so SIGKILL reaches the worker's pool children as a crash would.
        proc = subprocess.Popen(
            args,
            env=env or self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs[name] = proc
        return proc

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for name, proc in self.procs.items():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill(name)


def is_up(base_url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{base_url}/login/", timeout=2).status_code < 500
    return False


@contextlib.contextmanager
def redis_on(port: int, folder) -> Iterator[None]:
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        assert time.monotonic() < deadline and proc.poll() is None, "redis-server did not start"
        time.sleep(0.05)
    try:
        yield
    finally:
        proc.terminate()
        proc.wait(10)
