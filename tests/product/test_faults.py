"""Faults while a team works on the served product: every client-seen answer counted.

A PostgreSQL and a Redis of this test's own (so that stopping them touches no other test),
`heartbench serve` and one `heartbench worker` as the deployment guide runs them. Six experts
rate through the API, a rubric study's units and a pairwise study's pairs in turn, and browse
their pages with a session; a senior decides the split units as they arrive. Meanwhile Redis
is stopped and started, PostgreSQL is stopped (immediate) and started, and the server and the
worker are SIGKILLed and started again. Afterwards: no 5xx but a 503 with Retry-After, every
acknowledged submit stored once, no unit with more than three raters, every decided unit has
its gold and every pair rated three times its majority's (docs/deploy.md, "Faults").
"""

import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.builders.product import senior_decisions, signed_in, token
from tests.product.conftest import BIN, PASSWORD, ROOT, _wait_up
from tests.services import free_port, postgres

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

STUDY = "faults"
PAIRS = "faults-pairs"
EXPERTS = [f"expert-{i:02d}" for i in range(6)]
PACE = 1.2  # seconds between an expert's units, so that the faults meet work in flight


@dataclass
class Seen:
    lock: threading.Lock = field(default_factory=threading.Lock)
    status: Counter = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)
    submitted: dict[str, dict[str, bool]] = field(default_factory=dict)
    chosen: dict[str, dict[str, str]] = field(default_factory=dict)
    decided: set[str] = field(default_factory=set)

    def acknowledged(self) -> int:
        with self.lock:
            return len(self.submitted) + len(self.chosen)

    def answer(self, what: str, send) -> httpx.Response | None:
        """One request; None when the server could not be reached (it is restarting): the
        caller tries again. A 5xx other than 503 + Retry-After is a fault the test fails on."""
        try:
            reply = send()
        except httpx.TransportError as exc:
            with self.lock:
                self.status[f"{what} unreachable"] += 1
            time.sleep(0.2)
            del exc
            return None
        with self.lock:
            self.status[f"{what} {reply.status_code}"] += 1
            if reply.status_code >= 500 and not (
                reply.status_code == 503 and reply.headers.get("Retry-After")
            ):
                self.bad.append(f"{what} {reply.status_code}: {reply.text[:200]}")
        if reply.status_code == 503:
            time.sleep(0.2)
            return None
        return reply

    def until_answered(self, what: str, send) -> httpx.Response:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            reply = self.answer(what, send)
            if reply is not None:
                return reply
        raise AssertionError(f"{what}: no answer for 90 s")


class Redis:
    """A redis-server on a port of its own that the test stops and starts."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder, self.proc = free_port(), folder, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_port(self.port)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Postgres:
    """The running cluster behind ``url``, stopped and started as the user owning its data."""

    def __init__(self, url: str) -> None:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            self.data = Path(conn.execute("SHOW data_directory").fetchone()[0])
        words = shlex.split((self.data / "postmaster.opts").read_text())
        self.options = shlex.join(words[3:])  # after the binary and -D DIR
        owner = self.data.stat()
        self.prefix = []
        if os.geteuid() == 0 and owner.st_uid != 0:
            self.prefix = ["setpriv", f"--reuid={owner.st_uid}", f"--regid={owner.st_gid}",
                           "--clear-groups"]  # fmt: skip

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            [*self.prefix, "pg_ctl", "-D", str(self.data), *args],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
            env={**os.environ, "LC_ALL": "C.UTF-8"},
        )  # fmt: skip

    def stop(self) -> None:
        self._ctl("-m", "immediate", "-w", "stop")

    def start(self) -> None:
        self._ctl("-o", self.options, "-l", str(self.data.parent / "restart.log"), "-w", "start")


def _wait_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        assert time.monotonic() < deadline, f"nothing listens on {port}"
        time.sleep(0.05)


def _labels(username: str, criteria: list[dict]) -> list[dict]:
    """Two of three raters say met, the third not met: every unit splits, so the senior
    decides each one."""
    hit = username not in EXPERTS[2::3]
    return [{"criterion": c["id"], "hit": hit} for c in criteria]


def expert(base: str, username: str, seen: Seen) -> None:
    with httpx.Client(base_url=base, timeout=30) as api:
        headers = seen.until_answered("token", lambda: api.post(
            "/api/v1/auth/token/", json={"username": username, "password": PASSWORD}
        )).json()["token"]  # fmt: skip
        headers = {"Authorization": f"Token {headers}"}
        pages = signed_in_retrying(base, username, seen)
        studies = [STUDY, PAIRS] if EXPERTS.index(username) % 2 else [PAIRS, STUDY]
        while studies:  # one unit of each study in turn, until both have none left
            study = studies.pop(0)
            if study == STUDY and not rate_a_unit(api, headers, username, seen):
                continue
            if study == PAIRS and not choose_a_pair(api, headers, seen):
                continue
            studies.append(study)
            for path in ("/", f"/rate/{study}/", "/done/", "/api/v1/studies/"):
                seen.answer("page", lambda path=path: pages.get(path))
            time.sleep(PACE)


def rate_a_unit(api: httpx.Client, headers: dict, username: str, seen: Seen) -> bool:
    """Claim and rate one unit of the rubric study; False when it has none left."""
    claimed = seen.until_answered(
        "next", lambda: api.post(f"/api/v1/assignments/next/?study={STUDY}", headers=headers)
    )
    if claimed.status_code != 201:
        return False
    body = claimed.json()
    labels = _labels(username, body["unit"]["criteria"])
    url = f"/api/v1/assignments/{body['id']}/submit/"
    done = seen.until_answered(
        "submit", lambda: api.post(url, json={"labels": labels}, headers=headers)
    )
    assert done.status_code in (200, 201), done.text
    with seen.lock:
        seen.submitted[body["id"]] = {x["criterion"]: x["hit"] for x in labels}
    return True


def choose_a_pair(api: httpx.Client, headers: dict, seen: Seen) -> bool:
    """Claim one pair of the pairwise study and choose the response shown first (the sides
    are shuffled per rater, so pairs get a majority either way and need no senior); False
    when it has none left."""
    claimed = seen.until_answered(
        "pair-next", lambda: api.post(f"/api/v1/work/rating/next/?study={PAIRS}", headers=headers)
    )
    if claimed.status_code != 201:
        return False
    sent = {"choice": "a", "reason": "A 先接住了情绪"}
    url = f"/api/v1/work/rating/{claimed.json()['id']}/submit/"
    done = seen.until_answered("pair-submit", lambda: api.post(url, json=sent, headers=headers))
    assert done.status_code in (200, 201), done.text
    with seen.lock:
        seen.chosen[claimed.json()["id"]] = sent
    return True


def signed_in_retrying(base: str, username: str, seen: Seen) -> httpx.Client:
    deadline = time.monotonic() + 90
    while True:
        try:
            return signed_in(base, username)
        except (httpx.TransportError, AssertionError):
            assert time.monotonic() < deadline, f"{username} could not sign in"
            time.sleep(0.3)


def senior(base: str, seen: Seen, experts_done: threading.Event) -> None:
    with httpx.Client(base_url=base, timeout=30) as api:
        headers = None
        while headers is None:
            with contextlib.suppress(httpx.TransportError):
                headers = token(api, "senior-00")
        while True:
            finished = experts_done.is_set()
            reply = seen.answer(
                "adj-next",
                lambda: api.post(f"/api/v1/adjudications/next/?study={STUDY}", headers=headers),
            )
            if reply is None:
                continue
            if reply.status_code != 201:
                if finished:
                    return
                time.sleep(0.3)
                continue
            body = reply.json()
            decisions = senior_decisions(body)
            url = f"/api/v1/adjudications/{body['id']}/submit/"
            done = seen.until_answered(
                "adj-submit", lambda url=url, decisions=decisions: api.post(
                    url, json={"decisions": decisions}, headers=headers
                ),
            )  # fmt: skip
            assert done.status_code in (200, 201), done.text
            with seen.lock:
                seen.decided.add(body["unit"]["token"])


def test_no_fault_costs_a_request_a_label_or_a_gold_row(tmp_path):
    pytest.importorskip("psycopg")
    with postgres(durable=True) as base_url:  # a crash must keep what it acknowledged
        redis = Redis(tmp_path)
        redis.start()
        pg = Postgres(base_url)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
            "DATABASE_URL": base_url,
            "REDIS_URL": redis.url,
            "CELERY_BROKER_URL": redis.url.rsplit("/", 1)[0] + "/5",
            "HEARTBENCH_DATA_DIR": str(tmp_path / "data"),
        }

        def cli(*args: str, stdin: str | None = None) -> str:
            done = subprocess.run(
                args, env=env, cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, done.stderr[-2000:]
            return done.stdout

        heartbench = str(BIN / "heartbench")
        cli(heartbench, "migrate", "--no-input", "-v", "0")
        cli(heartbench, "load-demo")
        cli(sys.executable, "-m", "tests.product.tool", "experts", "--experts", str(len(EXPERTS)),
            "--seniors", "1", "--password", PASSWORD)  # fmt: skip
        cli(heartbench, "study", "create", STUDY, "--dataset", "demo", "--models",
            "demo-advice-bot,demo-warm-counsellor", "--fraction", "1", "--seed", "5",
            "--adjudicate-splits", "*")  # fmt: skip
        cli(heartbench, "study", "open", STUDY)
        cli(heartbench, "pairwise", "draw", "faults-set", "--dataset", "demo", "--models",
            "demo-advice-bot,demo-warm-counsellor")  # fmt: skip
        cli(heartbench, "study", "create", PAIRS, "--pairwise", "faults-set", "--fraction", "1",
            "--seed", "5")  # fmt: skip
        cli(heartbench, "study", "open", PAIRS)

        procs: dict[str, subprocess.Popen] = {}
        port = free_port()
        base = f"http://127.0.0.1:{port}"

        def start(name: str, *args: str) -> None:
            procs[name] = subprocess.Popen(
                [heartbench, *args], env=env, cwd=ROOT, start_new_session=True,
                stdout=(tmp_path / f"{name}.log").open("a"), stderr=subprocess.STDOUT,
            )  # fmt: skip

        def kill(name: str) -> None:
            os.killpg(procs[name].pid, signal.SIGKILL)
            procs[name].wait(30)

        start("serve", "serve", "--port", str(port))
        start("worker", "worker", "--queues", "reports", "--concurrency", "1")
        _wait_up(base, procs["serve"], tmp_path / "serve.log")

        seen = Seen()
        experts_done = threading.Event()

        def thread(work, *args) -> threading.Thread:
            def run() -> None:
                try:
                    work(*args)
                except Exception as exc:  # a client that gave up is a finding, not a hang
                    seen.bad.append(f"{work.__name__} {args[1:2]}: {exc!r}"[:300])

            return threading.Thread(target=run)

        team = [thread(expert, base, name, seen) for name in EXPERTS]
        deciding = thread(senior, base, seen, experts_done)
        try:
            for t in [*team, deciding]:
                t.start()
            faults = []
            for name, stop, restart, down in (
                ("Redis", redis.stop, redis.start, 4),
                ("PostgreSQL", pg.stop, pg.start, 4),
                ("the server", lambda: kill("serve"),
                 lambda: start("serve", "serve", "--port", str(port)), 1),
                ("the worker", lambda: kill("worker"),
                 lambda: start("worker", "worker", "--queues", "reports", "--concurrency", "1"),
                 1),
            ):  # fmt: skip
                started = seen.acknowledged()
                deadline = time.monotonic() + 60
                while seen.acknowledged() < started + 3 and time.monotonic() < deadline:
                    time.sleep(0.1)  # some work between one fault and the next
                before = seen.acknowledged()
                stop()
                time.sleep(down)
                restart()
                faults.append((name, before))
            for t in team:
                t.join(240)
            experts_done.set()
            deciding.join(240)
            assert not any(t.is_alive() for t in [*team, deciding]), "the team did not finish"
            assert not seen.bad, seen.bad[:10]
            # Work was in flight at every fault: submits before and after each.
            assert all(0 < before < seen.acknowledged() for _, before in faults), faults
            assert seen.submitted and seen.chosen, "a study got no work"

            acknowledged = {"submitted": {k: v for k, v in seen.submitted.items()}}
            problems = json.loads(cli(sys.executable, "-m", "tests.product.tool", "check", STUDY,
                                      stdin=json.dumps(acknowledged)))  # fmt: skip
            assert problems == [], problems
            chosen = {"submitted": seen.chosen}
            problems = json.loads(cli(sys.executable, "-m", "tests.product.tool", "check", PAIRS,
                                      stdin=json.dumps(chosen)))  # fmt: skip
            assert problems == [], problems
            assert seen.decided, "the senior decided nothing"
            print(json.dumps({"faults": faults, "answers": dict(seen.status)}, indent=1))
        finally:
            experts_done.set()
            for name in list(procs):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(procs[name].pid, signal.SIGINT)
            for proc in procs.values():
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
            redis.stop()
