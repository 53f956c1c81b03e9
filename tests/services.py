"""Start the real services a test run needs, run a command against them, and stop them.

    python -m tests.services [--postgres [--statements]] [--redis] -- COMMAND ...

PostgreSQL comes from the installed ``initdb``/``pg_ctl`` binaries, in a temporary folder,
listening on 127.0.0.1 only (``--statements``: with ``pg_stat_statements`` loaded, for
benchmarks that list where its time goes); Redis from ``redis-server``. The command gets
``DATABASE_URL`` and ``REDIS_URL`` in its environment and its exit code is returned.
"""

import argparse
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def hears_ctrl_c() -> None:
    """A child's ``preexec_fn``: a suite started in the background (`make test &`) ignores
    SIGINT, and a child inherits that: it would never see the Ctrl-C a test sends it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _as_service_user(folder: Path) -> list[str]:
    """PostgreSQL refuses to run as root; run it as `nobody`, owning its folder."""
    if os.geteuid() != 0:
        return []
    nobody = pwd.getpwnam("nobody")
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    return ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]


@contextlib.contextmanager
def postgres(*, statements: bool = False, durable: bool = False) -> Iterator[str]:
    """A throw-away PostgreSQL on 127.0.0.1. Fast and unsafe by default (no fsync, commits
    not waited for: a crash may lose the last ones); ``durable`` keeps PostgreSQL's defaults,
    for a test that crashes the server and counts what it kept."""
    for tool in ("initdb", "pg_ctl"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not on PATH: install PostgreSQL's server binaries")
    folder = Path(tempfile.mkdtemp(prefix="heartbench-pg-"))
    folder.chmod(0o755)
    data, log = folder / "data", folder / "server.log"
    port = free_port()
    prefix = _as_service_user(folder)
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    subprocess.run(
        [*prefix, "initdb", "-D", str(data), "-U", "heartbench", "--auth=trust", "-E", "UTF8"],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    if statements:
        options += (
            " -c shared_preload_libraries=pg_stat_statements"
            " -c pg_stat_statements.track_planning=on"
        )
    subprocess.run(
        [*prefix, "pg_ctl", "-D", str(data), "-o", options, "-l", str(log), "-w", "start"],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    try:
        yield f"postgres://heartbench@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, "pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def scratch_database(base_url: str, *, prefix: str = "heartbench_scratch") -> Iterator[str]:
    """A database of its own on the PostgreSQL server of ``base_url``, dropped afterwards; for
    processes (CLI, workers, gunicorn) that cannot share pytest's test database."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield base_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@contextlib.contextmanager
def redis() -> Iterator[str]:
    if shutil.which("redis-server") is None:
        raise RuntimeError("redis-server is not on PATH: apt-get install redis-server")
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="heartbench-redis-"))
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("redis-server did not start")
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--statements", action="store_true", help="load pg_stat_statements")
    parser.add_argument("--redis", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give a command to run after --")
    env = dict(os.environ)
    with contextlib.ExitStack() as stack:
        if args.postgres:
            env["DATABASE_URL"] = stack.enter_context(postgres(statements=args.statements))
        if args.redis:
            env["REDIS_URL"] = stack.enter_context(redis())
        return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
