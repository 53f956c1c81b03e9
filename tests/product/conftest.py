"""The product as a new user runs it: `heartbench serve` in a subprocess, set up by the CLI.

The server runs on the database of the pass: the embedded SQLite (a file in a folder of its
own, tasks in process: exactly `make run`) in the SQLite pass, and in the PostgreSQL pass a
scratch database of the test server with Redis as the broker and one `heartbench worker`, as
the deployment guide runs it. Nothing here shares the pytest process's database or settings.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.conftest import require
from tests.e2e.conftest import chromium  # noqa: F401  (the browser expert's Chromium)
from tests.services import free_port, scratch_database

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PASSWORD = "product-suite-password"


@dataclass
class Product:
    base_url: str
    env: dict[str, str]
    folder: Path
    database: str
    server: subprocess.Popen
    procs: list[subprocess.Popen] = field(default_factory=list)

    def cli(self, *args: str, stdin: str | None = None) -> str:
        """Run `heartbench ARGS` against the served database, as an admin would."""
        return self._run([str(BIN / "heartbench"), *args], stdin)

    def tool(self, *args: str, stdin: str | None = None) -> str:
        """Run the suite's own tool (tests.product.tool) against the served database."""
        return self._run([sys.executable, "-m", "tests.product.tool", *args], stdin)

    def _run(self, argv: list[str], stdin: str | None) -> str:
        done = subprocess.run(
            argv, env=self.env, cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{' '.join(argv)}: {done.stderr[-2000:]}"
        return done.stdout

    def log(self) -> str:
        return (self.folder / "server.log").read_text(errors="replace")


def _wait_up(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 90
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/login/", timeout=2).status_code == 200:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"heartbench serve did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


@contextlib.contextmanager
def _database(folder: Path) -> Iterator[tuple[dict[str, str], str]]:
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        yield {}, "sqlite"
        return
    redis_url = os.environ.get("REDIS_URL", "")
    require(bool(redis_url), "the PostgreSQL pass of the product suite needs Redis as broker")
    with scratch_database(base, prefix="heartbench_product") as url:
        broker = redis_url.rsplit("/", 1)[0] + "/5"
        yield (
            {"DATABASE_URL": url, "REDIS_URL": redis_url, "CELERY_BROKER_URL": broker},
            ("postgresql"),
        )


@pytest.fixture(scope="module")
def product() -> Iterator[Product]:
    """A served platform with the demo dataset loaded and migrated, as `make run` leaves it."""
    with _served(demo=True) as served:
        yield served


@pytest.fixture(scope="module")
def empty_product() -> Iterator[Product]:
    """A served platform with nothing in it but its tables: a lab's first day."""
    with _served(demo=False) as served:
        yield served


@contextlib.contextmanager
def _served(*, demo: bool) -> Iterator[Product]:
    require((BIN / "gunicorn").exists(), "gunicorn is not installed")
    folder = Path(tempfile.mkdtemp(prefix="heartbench-product-"))
    with _database(folder) as (extra, database):
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
            "DATABASE_URL": "",
            "REDIS_URL": "",
            "HEARTBENCH_DATA_DIR": str(folder / "data"),
            **extra,
        }
        procs: list[subprocess.Popen] = []
        for command in (["migrate", "--no-input", "-v", "0"], *([["load-demo"]] if demo else [])):
            subprocess.run(
                [str(BIN / "heartbench"), *command],
                env=env,
                cwd=ROOT,
                check=True,
                capture_output=True,
                timeout=300,
            )
        if "CELERY_BROKER_URL" in extra:
            procs.append(
                subprocess.Popen(
                    [
                        str(BIN / "heartbench"),
                        "worker",
                        "--queues",
                        "reports",
                        "--concurrency",
                        "1",
                    ],
                    env=env,
                    cwd=ROOT,
                    stdout=(folder / "worker.log").open("w"),
                    stderr=subprocess.STDOUT,
                )
            )
        port = free_port()
        log = folder / "server.log"
        server = subprocess.Popen(
            [str(BIN / "heartbench"), "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_up(f"http://127.0.0.1:{port}", server, log)
            yield Product(
                base_url=f"http://127.0.0.1:{port}",
                env=env,
                folder=folder,
                database=database,
                server=server,
                procs=procs,
            )
        finally:
            for proc in [server, *procs]:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGINT)  # Ctrl-C, as a user stops it
            for proc in [server, *procs]:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        # Ctrl-C is how a user stops `heartbench serve`: a clean exit, no traceback.
        assert server.returncode == 0, log.read_text()[-3000:]
        assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
        # In-process tasks build no AMQP connection (which would log "No hostname was supplied").
        assert "No hostname" not in log.read_text(), log.read_text()[-3000:]
        shutil.rmtree(folder, ignore_errors=True)
