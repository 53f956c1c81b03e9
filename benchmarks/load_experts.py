"""Load test: N simulated experts claiming, autosaving and submitting against `heartbench serve`.

    .venv/bin/python benchmarks/load_experts.py --experts 20,50 --seconds 30          # SQLite
    python -m tests.services --postgres --redis -- \\
        .venv/bin/python benchmarks/load_experts.py --experts 20,50,200 --seconds 30   # PostgreSQL

The server is started the README's way, ``heartbench serve`` (gunicorn, threaded workers), in
production mode. Without ``DATABASE_URL`` it runs on the embedded SQLite in a folder of its own
with tasks in process, exactly as ``make run``; under ``tests.services --postgres --redis`` it
gets a database of its own on that server, Redis as the broker and one ``heartbench worker``
on the reports queue, as the deployment guide sets it up. The released cases are imported
(read in place, never copied) with synthetic answers of ``--models`` models. For each N it
opens a fresh study over every answer, and N asyncio experts, each with its own API token and
its own kept-alive HTTP/1.1 connection (as a browser keeps one; ``Connection``, a few lines on
asyncio streams that cost the generator far less CPU than an HTTP library), loop: claim the
next unit (its answer carries the study's progress line, which the workbench shows; from a
server older than that, read it as the workbench then did, a fourth request), think,
autosave half of the labels, think, submit all of them, think, for ``--seconds``. Before the
first level an unmeasured ``--warm-up`` level on a study of its own gives the server and the
database a history, as a server in use has (``warm_up``). With ``--kinds rubric,pairwise``
each N is measured on a pairwise study too, right after its rubric level, on the same server
(issue 43: a pairwise claim and submit should cost what a rating's do): a pairwise set over
every pair of the ``--models`` models' answers per case (three models, three pairs a case)
is drawn once, and each level opens a fresh pairwise study over all of it, where each expert
loops claim (a unit of two responses, no criteria), think, submit a choice with a short
reason, think. A pair has no autosave (the draft endpoint takes rubric labels only), so a
pairwise cycle is two requests and two thinks where a rubric one is three and three: about
the same requests per second from as many experts, half again as many claims and submits.
The choice is a fixed function of the two texts whichever is shown first
(``fake_preference``), as the rubric experts' labels are of the criterion's text, so the three
raters of a pair agree only if the server maps each order shown back to the pair's. The warm-up
runs once per kind, so neither kind's first level meets tables the planner takes for empty.
A table comparing the kinds at each N over the level after its arrival closes the report
(``compare_rows``). Think times are uniform in [0.5, 1.5] × ``--think``: a real expert spends
minutes on a unit, so the default of one second offers about a hundred times the load of the
same number of people. A 503 (busy, with Retry-After) is counted and retried.

Afterwards the database is checked (tests.product.invariants): every acknowledged submission
is stored exactly once with exactly the labels sent, nothing unacknowledged was stored, every
autosaved but unsubmitted draft is there, and every unit has at most three raters, all
different; on a pairwise study every acknowledged choice is stored once with exactly the
winner sent, in the pair's stored order, and every pair with three ratings has the gold of
their majority (or waits for a senior). The figures are client side, from send to full
response, so they include the client's own event-loop delay. Each level is reported in rows
by when requests were sent: its arrival, the first ``--arrival`` seconds (every expert's
first claim falls in the first think, a burst of three times the steady rate of claims), then
a row per ``--every`` seconds, so that the study's later life shows apart (claims assign the
units with the fewest ratings first, so units complete, and the heavier last-rating submits
come, only once most units have two). The CPU per request is the server's (gunicorn's master
and workers, read from /proc at each row's bounds, divided by the row's requests;
PostgreSQL's and the Celery worker's own CPU are not in it); the client's CPU per request is
this process's own over the level, to show when the generator rather than the server limits.
On PostgreSQL its processes' CPU per request is read the same way (the server's postmaster and
its backends), and so is the share of its busy sessions that waited on a lock (``LockWaits``,
sampled every 50 ms). Under ``tests.services --postgres --statements``, ``--statements N``
lists the N statements of each level that took PostgreSQL the most time
(``pg_stat_statements``: execution and planning per request, calls per request).
"""

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENDPOINTS = ("next", "progress", "draft", "submit")
KINDS = ("rubric", "pairwise")  # of study a level is measured on (--kinds)
REASONS = ("更能接住来访者的情绪。", "两个回复差不多。", "  更具体，也更温暖。  ", "")
WARM_UP_EXPERTS = 50
OK = ("200", "201", "204")


@dataclass
class Tally:
    # endpoint → (seconds since the level started when sent, seconds to the full response,
    # status) for every request
    latency: dict[str, list[tuple[float, float, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    started: float = field(default_factory=time.perf_counter)
    status: Counter = field(default_factory=Counter)
    # assignment id acknowledged 201/200 → the labels sent (criterion token → hit), or on a
    # pair the choice as shown and the reason sent ({"choice": "a", "reason": "..."})
    submitted: dict[str, dict[str, bool] | dict[str, str]] = field(default_factory=dict)
    drafted: dict[str, int] = field(default_factory=dict)  # unsubmitted id → labels autosaved
    unexpected: list[str] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass
class Phase:
    """One row of the report: the requests sent within ``[start, end)`` seconds of a level."""

    experts: int
    start: float
    end: float
    latency: dict[str, list[float]]  # endpoint → seconds to the full response
    statuses: Counter  # "endpoint status" → requests
    cpu: tuple[float, float, float | None]  # server, client, PostgreSQL (None on SQLite)
    waits: float | None  # share of PostgreSQL's busy sessions waiting on a lock (None: SQLite)
    kind: str = ""  # the study's, in a column of its own when a run measures kinds (--kinds)

    def row(self) -> str:
        seconds = self.end - self.start
        requests = sum(self.statuses.values())
        submits = sum(c for k, c in self.statuses.items() if k in ("submit 200", "submit 201"))
        cells = " | ".join(
            "/".join(f"{percentile(self.latency[e], q) * 1000:.0f}" for q in (50, 95, 99))
            if self.latency[e]
            else "—"
            for e in ENDPOINTS
        )
        server, client, database = (
            f"{cpu * 1000 / max(requests, 1):.2f}" if cpu is not None else "—" for cpu in self.cpu
        )
        waits = "—" if self.waits is None else f"{self.waits:.0%}"
        busy = sum(c for k, c in self.statuses.items() if k.split()[-1] == "503")
        errors = sum(c for k, c in self.statuses.items() if k.split()[-1] not in (*OK, "503"))
        kind = f" {self.kind} |" if self.kind else ""
        return (
            f"| {self.experts} |{kind} {self.start:.0f}–{self.end:.0f} s | "
            f"{requests / seconds:.1f} | "
            f"{submits / seconds:.1f} | {cells} | {server} | {client} | {database} | {waits} | "
            f"{busy} | {errors} |"
        )


def row_marks(*, arrival: float, every: float, seconds: float) -> list[float]:
    """The seconds into a level at which a row of the table ends and the next begins: the
    arrival's end (none when ``arrival`` is 0), then every ``every`` seconds (0: none)."""
    step = every or seconds
    marks = [arrival + step * i for i in range(int(seconds / step) + 1)]
    return [mark for mark in marks if 0 < mark < seconds]


def phases_of(
    *,
    tally: Tally,
    snapshots: list[tuple],
    experts: int,
    waits: "LockWaits | None",
    kind: str = "",
) -> list[Phase]:
    """One phase per pair of consecutive snapshots (server, client and PostgreSQL CPU
    seconds, then the seconds since the level started): the requests sent between them, with
    the CPU they bound and the share of PostgreSQL's busy sessions that waited on a lock."""
    phases = []
    for first, last in pairwise(snapshots):
        start, end = first[-1], last[-1]
        latency, statuses = defaultdict(list), Counter()
        for endpoint, sent in tally.latency.items():
            for offset, seconds, status in sent:
                if start <= offset < end:
                    latency[endpoint].append(seconds)
                    statuses[f"{endpoint} {status}"] += 1
        cpu = tuple(None if b is None else b - a for a, b in zip(first[:3], last[:3], strict=True))
        share = None if waits is None else waits.share(tally.started + start, tally.started + end)
        phases.append(Phase(experts, start, end, latency, statuses, cpu, share, kind))
    return phases


def compare_rows(
    levels: dict[tuple[int, str], Phase], filled: dict[tuple[int, str], float]
) -> list[str]:
    """The kinds side by side at each N: (experts, kind) → the level's phase after its
    arrival, a row each, then at each N measured on both kinds the ratio pairwise / rubric
    of each figure. The CPU per submit is the server's whole cost of a unit's cycle (a rubric
    one has an autosave in it, a pairwise one none). ``filled``: the share of the study's
    rater slots submitted by the level's end, as a study's later life costs more (its last
    ratings, its claims' longer walks), and a pairwise level submits faster."""

    def figures(phase: Phase) -> list[float | None]:
        requests = sum(phase.statuses.values())
        submits = sum(phase.statuses[f"submit {status}"] for status in ("200", "201"))
        server, _, database = phase.cpu
        seconds = phase.end - phase.start
        return [
            requests / seconds,
            submits / seconds,
            *(
                percentile(phase.latency[e], 95) * 1000 if phase.latency.get(e) else None
                for e in ("next", "submit")
            ),
            server * 1000 / requests if requests else None,
            None if database is None or not requests else database * 1000 / requests,
            server * 1000 / submits if submits else None,
        ]

    def cells(values: list[float | None], form: str) -> str:
        return " | ".join("—" if v is None else format(v, form) for v in values)

    rows = []
    for n in sorted({n for n, _ in levels}):
        measured = {kind: figures(p) for (m, kind), p in levels.items() if m == n}
        for kind, values in measured.items():
            rows.append(f"| {n} | {kind} | {cells(values, '.1f')} | {filled[n, kind]:.0%} |")
        if "rubric" in measured and "pairwise" in measured:
            ratios = [
                None if p is None or r in (None, 0) else p / r
                for p, r in zip(measured["pairwise"], measured["rubric"], strict=True)
            ]
            rows.append(f"| {n} | pairwise / rubric | {cells(ratios, '.2f')} | — |")
    return rows


# ---- the database side (in this process, through the ORM) --------------------------------


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed_answers(*, data: Path, models: int) -> tuple[object, list]:
    from benchmark.models import ModelUnderTest, Response
    from benchmark.services.imports import dataset_import

    dataset = dataset_import(path=data, name="load", source="load test").dataset
    cases = list(dataset.cases.all())
    made = []
    for index in range(models):
        model = ModelUnderTest.objects.create(name=f"load-model-{index}")
        Response.objects.bulk_create(
            Response(model=model, case=case, text=f"模拟回复 {index}-{case.pk}：我在这里陪着你。")
            for case in cases
        )
        made.append(model)
    return dataset, made


def seed_pairs(*, dataset, models: list) -> object:
    """The pairwise set of every pair of ``models``' answers to each case of ``dataset``."""
    from benchmark.services.pairwise import pairwise_set_draw

    return pairwise_set_draw(name="load-pairs", dataset=dataset, models=models)


def seed_study(*, name: str, dataset, models: list, experts: int, pair_set=None) -> dict[str, str]:
    """A fresh open study with ``experts`` new experts, over every answer or, with
    ``pair_set``, over every pair of it (a pairwise study); returns their API tokens."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotation.models import Expert
    from validation.services import study_create, study_open

    user_model = get_user_model()
    users = [user_model(username=f"{name}-e{i}") for i in range(experts)]
    for user in users:
        user.set_unusable_password()  # they use tokens; hashing 200 passwords is not the test
    users = user_model.objects.bulk_create(users)
    # Capacity above anything a run can reach: the daily cap is not what is under test.
    expert_rows = Expert.objects.bulk_create(
        Expert(user=u, display_name=u.username, languages=["zh"], daily_capacity=100_000)
        for u in users
    )
    if pair_set is not None:  # the set gives the study its dataset and models
        dataset, models = None, ()
    study = study_create(
        name=name,
        dataset=dataset,
        models=models,
        fraction=1.0,
        seed=1,
        experts=expert_rows,
        pair_set=pair_set,
    )
    study_open(study=study)
    tokens = Token.objects.bulk_create(Token(user=u, key=Token.generate_key()) for u in users)
    analyze()
    return {t.user.username: t.key for t in tokens}


def analyze() -> None:
    """The planner's statistics for the rows written so far, as autovacuum takes them within a
    minute on a server (PostgreSQL only). Only tables holding rows: autovacuum never analyses
    a table nothing was written to, and one recorded as empty that a level then fills looks
    free to scan whole to the planner."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            name = connection.ops.quote_name(table)
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {name})")
            if cursor.fetchone()[0]:
                cursor.execute(f"ANALYZE {name}")


def warm_up(
    *, web: str, dataset, models: list, seconds: float, think: float, pair_set=None
) -> None:
    """An unmeasured level of ``WARM_UP_EXPERTS`` experts on a study of its own (the next
    ``seed_study`` then takes the planner's statistics of what it wrote, as autovacuum does on
    a server in use). Without it each run measured a database's first minute: tables created
    empty, whose indexes the planner takes for empty until autovacuum's first pass (a minute
    in), so it walked every rating of the table on each claim, and workers
    that had not yet imported, connected or compiled anything. With ``pair_set``, on a
    pairwise study: the choices and pairwise gold a pairwise level writes have tables of
    their own."""
    name = "warm-up" if pair_set is None else "warm-up-pairwise"
    tokens = seed_study(
        name=name, dataset=dataset, models=models, experts=WARM_UP_EXPERTS, pair_set=pair_set
    )
    tally, _ = asyncio.run(
        level(
            base_url=web,
            tokens=tokens,
            study=name,
            seconds=seconds,
            think=think,
            seed=0,
            marks=[],
            snapshot=lambda: (),
            kind="rubric" if pair_set is None else "pairwise",
        )
    )
    problems = verify(name=name, tally=tally)
    if problems:
        raise SystemExit(f"the {name} level failed its checks: {problems}")


def postgres_pid() -> int | None:
    """The PostgreSQL server's postmaster (the parent of this process's backend), or None on
    SQLite."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        [(backend,)] = cursor.fetchall()
    return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])


class LockWaits(threading.Thread):
    """Samples PostgreSQL's sessions every ``EVERY`` seconds, on a connection of its own:
    those running a statement, and those of them waiting on a heavyweight lock (a row another
    transaction holds until it commits, say). Their share shows a row many requests queue on,
    which costs no CPU and shows in no profile."""

    EVERY = 0.05

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.samples = url, []
        self.connected, self.done = threading.Event(), threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            self.connected.set()
            while not self.done.wait(self.EVERY):
                busy, waiting = connection.execute(
                    "SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') "
                    "FROM pg_stat_activity WHERE state = 'active' AND datname = "
                    "current_database() AND pid <> pg_backend_pid()"
                ).fetchone()
                self.samples.append((time.perf_counter(), busy, waiting))

    def stop(self) -> "LockWaits":
        self.done.set()
        self.join()
        return self

    def share(self, start: float, end: float) -> float | None:
        """Waiting sessions over busy ones, summed over the samples within [start, end)."""
        within = [(busy, waiting) for at, busy, waiting in self.samples if start <= at < end]
        busy = sum(b for b, _ in within)
        return sum(w for _, w in within) / busy if busy else None


def sessions_alive() -> set[int] | None:
    """The backends now connected to this database, this process's own left out; None on
    SQLite. Those a level adds are the sessions the server (and worker) opened during it."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        return {pid for (pid,) in cursor.fetchall()}


def statements_reset() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        cursor.execute("SELECT pg_stat_statements_reset()")


def statements_top(*, limit: int) -> list[tuple[float, float, int, int, str]]:
    """(execution ms, planning ms, calls, plans, statement) of this database's statements
    since ``statements_reset``, the most time first."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT total_exec_time, total_plan_time, calls, plans, query FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "ORDER BY total_exec_time + total_plan_time DESC LIMIT %s",
            [limit],
        )
        return cursor.fetchall()


def verify(*, name: str, tally: Tally) -> list[str]:
    """Problems found after a level, in the database and in the answers the generator did not
    expect; empty when every check holds."""
    from tests.product.invariants import study_problems

    found = study_problems(name=name, submitted=tally.submitted, drafted=tally.drafted)
    return found + tally.unexpected[:5]


# ---- the client side (asyncio streams against gunicorn) ----------------------------------


@dataclass(slots=True)
class Reply:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class Connection:
    """One kept-alive HTTP/1.1 connection, as a browser keeps one to a site; ``headers`` are
    sent with every request. A connection the server closed while idle (its keep-alive ran
    out) is reopened and the request sent again, as a browser does, but only when the server
    answered nothing on a reused connection. Replies with a Content-Length or a chunked body,
    without a body (204, 304) or ended by the server closing are read in full;
    ``Connection: close`` closes after one."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        self.host, _, port = base_url.removeprefix("http://").partition(":")
        self.port = int(port or 80)
        headers = {"Host": f"{self.host}:{self.port}", **headers}
        self.head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes | None = None) -> Reply:
        length = "Content-Length: 0\r\n"
        if body is not None:
            length = f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        message = f"{method} {path} HTTP/1.1\r\n{self.head}{length}\r\n".encode()
        if body:
            message += body
        while True:
            reused = self.writer is not None
            if not reused:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            self.writer.write(message)
            try:
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (ConnectionError, asyncio.IncompleteReadError) as error:
                self.close()
                if reused and not getattr(error, "partial", b""):
                    continue  # closed while idle: nothing was read, so nothing was done
                raise
            try:
                return await self._rest(head)
            except BaseException:
                self.close()
                raise

    async def _rest(self, head: bytes) -> Reply:
        status_line, *lines = head[:-4].decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.lower()] = value.strip()
        status = int(status_line.split(" ", 2)[1])
        reader = self.reader
        if status in (204, 304):
            body = b""
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16):
                chunks.append((await reader.readexactly(size + 2))[:-2])
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any
                pass
            body = b"".join(chunks)
        elif "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        else:  # delimited by the server closing
            body = await reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Reply(status, headers, body)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def timed(
    connection: Connection, tally: Tally, endpoint: str, method: str, path: str, body=None
) -> Reply:
    started = time.perf_counter()
    reply = await connection.request(method, path, body)
    elapsed = time.perf_counter() - started
    tally.latency[endpoint].append((started - tally.started, elapsed, reply.status))
    tally.status[f"{endpoint} {reply.status}"] += 1
    return reply


async def until_not_busy(connection: Connection, tally: Tally, *args) -> Reply:
    """Send; while the server answers 503 (busy, nothing changed), wait its Retry-After."""
    while True:
        reply = await timed(connection, tally, *args)
        if reply.status != 503:
            return reply
        await asyncio.sleep(float(reply.headers.get("retry-after", "1")))


def fake_preference(first: str, second: str) -> str:
    """The choice between two responses as shown (``a``: ``first``), a fixed function of the
    pair whichever is shown first, as ``fake_verdict`` is of a criterion's text: a tie for
    about one pair in five, else the response whose digest sorts first."""
    digests = [hashlib.sha256(text.encode("utf-8")).digest() for text in (first, second)]
    if hashlib.sha256(b"".join(sorted(digests))).digest()[0] % 5 == 0:
        return "tie"
    return "a" if digests[0] < digests[1] else "b"


async def expert(
    connection: Connection,
    *,
    study: str,
    deadline: float,
    think: float,
    tally: Tally,
    rng: random.Random,
    kind: str = "rubric",
) -> None:
    from benchmark.llm.fake_server import fake_verdict

    claim = f"/api/v1/work/rating/next/?study={quote(study)}"
    progress = f"/api/v1/studies/{quote(study)}/progress/"

    async def pause() -> None:
        await asyncio.sleep(think * (0.5 + rng.random()))

    await asyncio.sleep(think * rng.random())  # experts do not all arrive in the same instant
    while time.monotonic() < deadline:
        reply = await timed(connection, tally, "next", "POST", claim)
        if reply.status == 204:
            return
        if reply.status == 503:  # busy (units locked, or the database): try again
            await pause()
            continue
        if reply.status != 201:
            tally.unexpected.append(f"next {reply.status}: {reply.text[:200]}")
            return
        body = reply.json()
        ident = body["id"]
        if "progress" not in body:
            # A server before the claim carried the progress line: the workbench read it then.
            reply = await until_not_busy(connection, tally, "progress", "GET", progress)
            if reply.status != 200:
                tally.unexpected.append(f"progress {reply.status}: {reply.text[:200]}")
                return
        if kind == "pairwise":
            if not await choose(
                connection, body, pause=pause, deadline=deadline, tally=tally, rng=rng
            ):
                return
            await pause()
            continue
        labels = [
            {"criterion": c["id"], "hit": fake_verdict(c["text"])} for c in body["unit"]["criteria"]
        ]
        await pause()
        half = labels[: max(1, len(labels) // 2)]
        reply = await until_not_busy(
            connection,
            tally,
            "draft",
            "PUT",
            f"/api/v1/work/rating/{ident}/draft/",
            json.dumps({"labels": half}).encode(),
        )
        if reply.status != 200:
            tally.unexpected.append(f"draft {reply.status}: {reply.text[:200]}")
            return
        tally.drafted[ident] = len(half)
        await pause()
        if time.monotonic() >= deadline:
            break  # leave the draft behind, as an expert who stops for the day would
        if not await submit(connection, tally, ident, {"labels": labels}):
            return
        del tally.drafted[ident]
        tally.submitted[ident] = {label["criterion"]: label["hit"] for label in labels}
        await pause()


async def submit(connection: Connection, tally: Tally, ident: str, body: dict) -> bool:
    """Submit a claimed unit's answer (labels or a choice); False, noted, when refused."""
    reply = await until_not_busy(
        connection,
        tally,
        "submit",
        "POST",
        f"/api/v1/work/rating/{ident}/submit/",
        json.dumps(body).encode(),
    )
    if reply.status not in (200, 201):
        tally.unexpected.append(f"submit {reply.status}: {reply.text[:200]}")
        return False
    return True


async def choose(
    connection: Connection,
    claimed: dict,
    *,
    pause: Callable[[], Awaitable[None]],
    deadline: float,
    tally: Tally,
    rng: random.Random,
) -> bool:
    """A claimed pair: think, then submit a choice and a reason (a pair has no autosave);
    False when the expert stops (the server answered what it should not, or the level
    ended while they thought, leaving the claim to its lease)."""
    ident, unit = claimed["id"], claimed["unit"]
    if unit.get("question_type") != "pairwise" or len(unit.get("responses", ())) != 2:
        tally.unexpected.append(f"next: not a pair: {json.dumps(unit)[:200]}")
        return False
    answer = {"choice": fake_preference(*unit["responses"]), "reason": rng.choice(REASONS)}
    await pause()
    if time.monotonic() >= deadline:
        return False
    if not await submit(connection, tally, ident, answer):
        return False
    tally.submitted[ident] = answer
    return True


async def level(
    *,
    base_url: str,
    tokens: dict[str, str],
    study: str,
    seconds: float,
    think: float,
    seed: int,
    marks: list[float],
    snapshot: Callable[[], tuple[float, ...]],
    kind: str = "rubric",
) -> tuple[Tally, list[tuple]]:
    """The level's tally and ``snapshot()`` at its start, at each of ``marks`` seconds into it
    that it lasted to, and at its end, each with the seconds since the start appended; its
    experts work a study of ``kind`` (``KINDS``)."""
    # Each expert has a connection of their own, as each has a browser, kept alive between
    # requests. On asyncio streams, not httpx: an httpx client per expert cost the generator
    # 2-3.5 ms of CPU per request on the cores the server measured here runs on.
    connections = [
        Connection(base_url, {"Authorization": f"Token {token}"}) for token in tokens.values()
    ]
    tally = Tally()
    started = time.monotonic()
    taken = []

    def take() -> None:
        taken.append((*snapshot(), time.perf_counter() - tally.started))

    take()
    handles = [asyncio.get_running_loop().call_later(mark, take) for mark in marks]
    try:
        async with asyncio.timeout(seconds + 120):  # a server that stops answering ends the run
            await asyncio.gather(
                *(
                    expert(
                        connection,
                        study=study,
                        deadline=started + seconds,
                        think=think,
                        tally=tally,
                        rng=random.Random(f"{seed}:{i}"),
                        kind=kind,
                    )
                    for i, connection in enumerate(connections)
                )
            )
    finally:
        for connection in connections:
            connection.close()
    for handle in handles:
        handle.cancel()
    take()
    return tally, taken


# ---- the stack ---------------------------------------------------------------------------


@contextlib.contextmanager
def database(base_url: str, folder: Path):
    """The server's database: a scratch PostgreSQL database, or SQLite in ``folder``."""
    from tests.services import scratch_database

    os.environ["HEARTBENCH_DATA_DIR"] = str(folder / "data")
    (folder / "data").mkdir(parents=True, exist_ok=True)
    if not base_url.startswith("postgres"):
        yield ""
        return
    from django.db import connections

    with scratch_database(base_url, prefix="heartbench_load") as url:
        try:
            yield url
        finally:
            connections.close_all()


@contextlib.contextmanager
def served(*, folder: Path, database_url: str, redis_url: str, workers: int, threads: int):
    """`heartbench serve` in production mode; with PostgreSQL, Redis and one reports worker."""
    from tests.services import free_port

    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url if database_url else "",
        "HEARTBENCH_DATA_DIR": str(folder / "data"),
        "HEARTBENCH_ENV": "production",
        # The checks in this process derive the experts' criterion tokens from the same key.
        "DJANGO_SECRET_KEY": os.environ["DJANGO_SECRET_KEY"],
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "HEARTBENCH_STATIC_ROOT": str(folder / "static"),
    }
    if database_url:
        env["CELERY_BROKER_URL"] = redis_url.rsplit("/", 1)[0] + "/6"
    subprocess.run(
        [str(BIN / "heartbench"), "collectstatic", "--no-input"],
        env=env,
        check=True,
        capture_output=True,
    )
    port = free_port()
    serve = [str(BIN / "heartbench"), "serve", "--port", str(port)]
    serve += ["--workers", str(workers), "--threads", str(threads)]
    procs = [
        subprocess.Popen(
            serve,
            env=env,
            cwd=ROOT,
            stdout=(folder / "web.log").open("w"),
            stderr=subprocess.STDOUT,
        )
    ]
    if database_url:
        procs.append(
            subprocess.Popen(
                [str(BIN / "heartbench"), "worker", "--queues", "reports", "--concurrency", "1"],
                env=env,
                cwd=ROOT,
                stdout=(folder / "worker.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base_url}/login/", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline or procs[0].poll() is not None:
                raise RuntimeError(f"heartbench serve did not start; see {folder / 'web.log'}")
            time.sleep(0.2)
        yield base_url, procs[0].pid
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


def cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by gunicorn's master ``pid`` and its workers (from
    /proc/<pid>/stat: user and system time, with the children it reaped)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += sum(int(ticks) for ticks in fields[11:15])  # utime stime cutime cstime
    return total / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    released = ROOT.parent / "shared" / "heartbench-data" / "question_all.jsonl"
    parser.add_argument("--data", type=Path, default=released)
    parser.add_argument("--experts", default="20,50", help="comma-separated levels")
    parser.add_argument("--seconds", type=float, default=30.0, help="per level")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between actions")
    parser.add_argument("--models", type=int, default=3, help="answers per case (units)")
    parser.add_argument("--workers", type=int, default=2, help="heartbench serve --workers")
    parser.add_argument("--threads", type=int, default=8, help="heartbench serve --threads")
    parser.add_argument(
        "--arrival",
        type=float,
        default=5.0,
        help="seconds at the start of a level reported on a row of their own (default 5; 0: none): "
        "every expert arrives within the first think, a burst the steady state does not have",
    )
    parser.add_argument(
        "--every",
        type=float,
        default=10.0,
        help="after the arrival, a row per this many seconds (default 10; 0: one row)",
    )
    parser.add_argument(
        "--statements", type=int, default=0, help="list each level's N costliest statements"
    )
    parser.add_argument(
        "--warm-up",
        type=float,
        default=10.0,
        help="seconds of an unmeasured level of its own before the first (default 10; 0: "
        "none): a server in use has served before and its tables have the planner's "
        "statistics, a database created for the run has neither",
    )
    parser.add_argument(
        "--kinds",
        default="rubric",
        help="comma-separated kinds of study each level is measured on, in this order: rubric, "
        "pairwise (default rubric); a pairwise level follows its N's rubric one on the same "
        "server",
    )
    args = parser.parse_args()
    base_db, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if base_db.startswith("postgres") and not redis_url:
        parser.error(
            "PostgreSQL needs Redis too: run under `python -m tests.services --postgres --redis`"
        )
    if not args.data.exists():
        parser.error(f"no dataset at {args.data}")
    levels = [int(n) for n in args.experts.split(",")]
    kinds = [kind.strip() for kind in args.kinds.split(",")]
    if not kinds or set(kinds) - set(KINDS) or len(set(kinds)) != len(kinds):
        parser.error(f"--kinds takes each of {', '.join(KINDS)} at most once, got {args.kinds!r}")
    if "pairwise" in kinds and args.models < 2:
        parser.error("a pairwise study needs two models' answers at least: --models 2 or more")

    def shown(kind: str) -> str:
        # The kind in a column of its own only when a run measures kinds: a run of rubric
        # levels alone prints the table it always did.
        return "" if kinds == ["rubric"] else kind

    sys.path.insert(0, str(ROOT))  # tests.services and tests.product.invariants
    os.environ["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(40)

    failed = False
    rows, phases = [], []
    compared: dict[tuple[int, str], Phase] = {}
    filled: dict[tuple[int, str], float] = {}  # of the study's rater slots, at the level's end
    pairs = 0
    folder = Path(tempfile.mkdtemp(prefix="heartbench-load-"))
    with database(base_db, folder) as url:
        setup_django(url)
        database_pid = postgres_pid()
        dataset, models = seed_answers(data=args.data, models=args.models)
        units = len(models) * dataset.cases.count()
        with served(
            folder=folder,
            database_url=url,
            redis_url=redis_url,
            workers=args.workers,
            threads=args.threads,
        ) as (web, server_pid):
            pair_set = seed_pairs(dataset=dataset, models=models) if "pairwise" in kinds else None
            pairs = 0 if pair_set is None else pair_set.pairs.count()
            for kind in kinds if args.warm_up else ():
                warm_up(
                    web=web,
                    dataset=dataset,
                    models=models,
                    seconds=args.warm_up,
                    think=args.think,
                    pair_set=pair_set if kind == "pairwise" else None,
                )
            for n, kind in ((n, kind) for n in levels for kind in kinds):
                name = f"load-{n}" if kind == "rubric" else f"load-{n}-{kind}"
                tokens = seed_study(
                    name=name,
                    dataset=dataset,
                    models=models,
                    experts=n,
                    pair_set=pair_set if kind == "pairwise" else None,
                )
                if args.statements:
                    statements_reset()

                def snapshot() -> tuple[float, float, float | None]:
                    # The server's, this process's and PostgreSQL's CPU seconds so far.
                    return (
                        cpu_seconds(server_pid),
                        time.process_time(),
                        cpu_seconds(database_pid) if database_pid else None,
                    )

                waits = LockWaits(url) if database_pid else None
                if waits is not None:
                    waits.start()
                    waits.connected.wait(10)
                alive = sessions_alive()  # the sampler's own session among them
                tally, snapshots = asyncio.run(
                    level(
                        base_url=web,
                        tokens=tokens,
                        study=name,
                        seconds=args.seconds,
                        think=args.think,
                        seed=n,
                        marks=row_marks(
                            arrival=args.arrival, every=args.every, seconds=args.seconds
                        ),
                        snapshot=snapshot,
                        kind=kind,
                    )
                )
                opened = None if alive is None else len(sessions_alive() - alive)
                if waits is not None:
                    waits.stop()
                top = statements_top(limit=args.statements) if args.statements else []
                problems = verify(name=name, tally=tally)
                failed |= bool(problems)
                rows.append((n, shown(kind), tally, problems, top, opened))
                phases.extend(
                    phases_of(
                        tally=tally,
                        snapshots=snapshots,
                        experts=n,
                        waits=waits,
                        kind=shown(kind),
                    )
                )
                # After the arrival (when the level lasted past it), for the kinds' comparison.
                skip = 1 if 0 < args.arrival < args.seconds else 0
                [compared[n, kind]] = phases_of(
                    tally=tally,
                    snapshots=[snapshots[skip], snapshots[-1]],
                    experts=n,
                    waits=waits,
                    kind=kind,
                )
                slots = 3 * (units if kind == "rubric" else pairs)
                filled[n, kind] = len(tally.submitted) / slots
                print(
                    f"{n} experts{f', {kind}' if shown(kind) else ''}: "
                    f"{len(tally.submitted)} submissions, "
                    f"{'OK' if not problems else problems}",
                    file=sys.stderr,
                )
    shutil.rmtree(folder, ignore_errors=True)  # the server's log and SQLite file

    studies = f"{units} units × 3 raters per study"
    if pairs:
        studies += f" ({pairs} pairs × 3 raters per pairwise study)"
    print(
        f"\nload average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; "
        f"{'PostgreSQL' if url else 'SQLite'}; {studies}; "
        f"think {args.think:g} s; heartbench serve {args.workers} workers × {args.threads} "
        f"threads; {args.seconds:g} s per level\n"
    )
    if "pairwise" in kinds:
        print(
            "pairwise experts: claim, think, submit a choice, think; no autosave (a pair has "
            "none), so no draft requests on pairwise rows\n"
        )
    head = " | ".join(f"{e} p50/p95/p99 ms" for e in ENDPOINTS)
    kind_head, kind_rule = ("kind | ", "---|") if shown("pairwise") else ("", "")
    print(
        f"| experts | {kind_head}sent at | requests/s | submits/s | {head} | CPU ms/request "
        "| client CPU ms/request | PostgreSQL CPU ms/request | waiting on a lock | 503 | errors |"
    )
    print(f"|---|{kind_rule}---|---|---|" + "---|" * len(ENDPOINTS) + "---|---|---|---|---|---|")
    for phase in phases:
        print(phase.row())
    # Sessions opened during the level and still open at its end: each plans its statements
    # anew before any plan is kept.
    print(
        f"\n| experts | {kind_head}checks | PostgreSQL sessions opened |\n|---|{kind_rule}---|---|"
    )
    for n, kind, _, problems, _, opened in rows:
        checks = "all hold" if not problems else "; ".join(problems)
        kind = f" {kind} |" if kind else ""
        print(f"| {n} |{kind} {checks} | {'—' if opened is None else opened} |")
    if len(kinds) > 1:
        after = (
            f"after the first {args.arrival:g} s" if 0 < args.arrival < args.seconds else "whole"
        )
        print(
            f"\nThe kinds compared, each level {after}; CPU per submit: the server's per "
            "acknowledged submit, its cycle's other requests included (a rubric cycle has an "
            "autosave, a pairwise one none)\n"
        )
        print(
            "| experts | kind | requests/s | submits/s | next p95 ms | submit p95 ms "
            "| CPU ms/request | PostgreSQL CPU ms/request | CPU ms/submit | slots rated |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for line in compare_rows(compared, filled):
            print(line)
    for n, kind, tally, _, top, _ in rows:
        if not top:
            continue
        requests = max(sum(len(v) for v in tally.latency.values()), 1)
        print(
            f"\n{n} experts{f' ({kind})' if kind else ''}, {requests} requests: "
            "PostgreSQL's costliest statements\n"
        )
        # Plans per call: 1 when every call is planned, near 0 when a prepared statement's
        # plan is kept.
        print(
            "| execution ms/request | planning ms/request | calls/request | plans/call "
            "| statement |"
        )
        print("|---|---|---|---|---|")
        for execution, planning, calls, plans, query in top:
            text = " ".join(query.split())
            print(
                f"| {execution / requests:.3f} | {planning / requests:.3f} | "
                f"{calls / requests:.2f} | {plans / max(calls, 1):.2f} | `{text[:160]}` |"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
