"""CPU and queries of each expert request, one request at a time, in this process.

    .venv/bin/python benchmarks/expert_requests.py                        # embedded SQLite
    python -m tests.services --postgres -- .venv/bin/python benchmarks/expert_requests.py
    .venv/bin/python benchmarks/expert_requests.py --cprofile submit      # calls, where they go
    .venv/bin/python benchmarks/expert_requests.py --auth session         # as the workbench

The load test (``load_experts.py``) measures the server under a crowd, where on a shared
machine the other processes' share moves the figures from minute to minute. This measures
what one request costs: the process CPU time (``time.process_time``, which other processes'
load does not add to) and the SQL statements of each expert call (the next-unit claim, whose
answer brings the progress line; the progress line on its own, as the workbench reads it when
a claim hands out nothing; autosave; submit) through Django's whole request path (middleware, DRF,
the token authentication, or with ``--auth session`` the session cookie the workbench's
pages send, read by the configured session engine), with ``DEBUG`` off as in production.
On PostgreSQL it also reads the CPU the connection's server process spent on each request
(from /proc, so the server must run on this machine, as under ``tests.services``).
``--cases`` released cases (read in place) with ``--models`` synthetic answers each make one
open study, which ``--experts`` experts rate to the end, round after round; the medians are
printed per endpoint. The database is a scratch SQLite file, or a scratch database on the server of
``DATABASE_URL``. Run it with another tree on ``PYTHONPATH`` to measure that tree.
"""

import argparse
import cProfile
import logging
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENDPOINTS = ("next", "progress", "draft", "submit")
JSON = "application/json"
NEXT = "/api/v1/work/rating/next/?study="


def setup(*, database_url: str) -> None:
    os.environ.update(
        DATABASE_URL=database_url, DJANGO_DEBUG="false", DJANGO_SETTINGS_MODULE="config.settings"
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


@contextmanager
def scratch_database() -> Iterator[Path]:
    """A scratch database (or SQLite file) on ``DATABASE_URL``'s server, migrated, and Django
    set up on it; dropped after. Yields a scratch folder."""
    # load_experts beside this file; the project root for tests.services last, so that a
    # tree on PYTHONPATH is the one measured.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.append(str(ROOT))
    from load_experts import database

    with (
        tempfile.TemporaryDirectory() as scratch,
        database(os.environ.get("DATABASE_URL", ""), Path(scratch)) as url,
    ):
        setup(database_url=url)
        yield Path(scratch)


def machine(*details: str) -> str:
    """The header line of a table: the machine, its load, and what was measured."""
    return "; ".join(
        (
            f"# {platform.machine()}, {os.cpu_count()} cores, load average "
            f"{os.getloadavg()[0]:.1f}",
            *details,
        )
    )


def ms_median_p90(seconds: list[float], digits: int = 2) -> tuple[str, str]:
    """Median and 90th percentile of ``seconds``, in milliseconds."""
    ordered = sorted(seconds)
    return (
        f"{statistics.median(ordered) * 1000:.{digits}f}",
        f"{ordered[int(0.9 * (len(ordered) - 1))] * 1000:.{digits}f}",
    )


def seed(*, data: Path, cases: int, models: int, experts: int, folder: Path) -> list[str]:
    """An open study over ``cases`` × ``models`` answers; the experts' API tokens."""
    from load_experts import seed_answers, seed_study

    subset = folder / "cases.jsonl"
    with data.open(encoding="utf-8") as source:
        subset.write_text(
            "".join(line for _, line in zip(range(cases), source, strict=False)), "utf-8"
        )
    dataset, made = seed_answers(data=subset, models=models)
    return list(seed_study(name="bench", dataset=dataset, models=made, experts=experts).values())


def backend_cpu() -> tuple[int, float] | None:
    """The PostgreSQL backend of this process's connection and its CPU seconds so far (user
    and system, from /proc: the server runs on this machine), or None (SQLite, no connection)."""
    from django.db import connection

    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    pid = connection.connection.info.backend_pid
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Meter:
    """Process CPU seconds, SQL statements and PostgreSQL's CPU seconds per endpoint."""

    def __init__(self, profile: str | None):
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.database: dict[str, list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        self.profile = profile
        self.profiler = cProfile.Profile(time.process_time)
        self._count = 0

    def __call__(self, execute, sql, params, many, context):
        self._count += 1
        return execute(sql, params, many, context)

    def call(self, name: str, send, *args, **kwargs):
        self._count = 0
        profiling = name == self.profile
        before = backend_cpu()
        start = time.process_time()
        if profiling:
            self.profiler.enable()
        reply = send(*args, **kwargs)
        if profiling:
            self.profiler.disable()
        self.cpu[name].append(time.process_time() - start)
        self.queries[name].append(self._count)
        after = backend_cpu()
        if before and after and before[0] == after[0]:  # the same backend all along
            self.database[name].append(after[1] - before[1])
        return reply


def expert_clients(*, tokens: list[str], auth: str) -> list:
    """One test client per expert: its API token in the header, or a logged-in session."""
    from django.test import Client
    from rest_framework.authtoken.models import Token

    if auth == "token":
        return [Client(HTTP_AUTHORIZATION=f"Token {token}") for token in tokens]
    clients = []
    for token in Token.objects.select_related("user").filter(key__in=tokens):
        client = Client()
        client.force_login(token.user)
        clients.append(client)
    return clients


def rate_everything(*, clients: list, meter: Meter) -> int:
    """Every expert claims, reads progress, autosaves and submits until nothing is left."""
    from django.db import connection
    from django.test import Client

    active = set(range(len(clients)))
    done = 0
    # Unmeasured: the first request imports the URLconf and what it names (once a process);
    # its 401 is expected, so not logged.
    logging.disable(logging.WARNING)
    assert Client().post(f"{NEXT}bench").status_code == 401
    logging.disable(logging.NOTSET)
    with connection.execute_wrapper(meter):
        while active:
            for index in sorted(active):
                client = clients[index]
                claimed = meter.call("next", client.post, f"{NEXT}bench")
                if claimed.status_code == 204:
                    active.discard(index)
                    continue
                assert claimed.status_code == 201, claimed.content
                body = claimed.json()
                reply = meter.call("progress", client.get, "/api/v1/studies/bench/progress/")
                assert reply.status_code == 200, reply.content
                labels = [{"criterion": c["id"], "hit": True} for c in body["unit"]["criteria"]]
                url = f"/api/v1/work/rating/{body['id']}"
                reply = meter.call(
                    "draft", client.put, f"{url}/draft/", {"labels": labels[:1]}, content_type=JSON
                )
                assert reply.status_code == 200, reply.content
                reply = meter.call(
                    "submit", client.post, f"{url}/submit/", {"labels": labels}, content_type=JSON
                )
                assert reply.status_code == 201, reply.content
                done += 1
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    released = ROOT.parent / "shared" / "heartbench-data" / "question_all.jsonl"
    parser.add_argument("--data", type=Path, default=released)
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--models", type=int, default=3, help="answers per case (units)")
    parser.add_argument("--experts", type=int, default=3)
    parser.add_argument("--cprofile", choices=ENDPOINTS, help="print this endpoint's profile")
    parser.add_argument(
        "--auth", choices=("token", "session"), default="token", help="how the experts log in"
    )
    args = parser.parse_args()
    with scratch_database() as folder:
        tokens = seed(
            data=args.data,
            cases=args.cases,
            models=args.models,
            experts=args.experts,
            folder=folder,
        )
        meter = Meter(args.cprofile)
        clients = expert_clients(tokens=tokens, auth=args.auth)
        submitted = rate_everything(clients=clients, meter=meter)
    from django.db import connection

    print(machine(f"{connection.vendor}, {args.auth} authentication", f"{submitted} submissions"))
    # PostgreSQL's CPU is read in clock ticks (10 ms), so per request only its mean means much.
    print(
        "| request | CPU ms median | CPU ms p90 | queries median / max | PostgreSQL CPU ms mean |"
    )
    print("|---|---|---|---|---|")
    for name in ENDPOINTS:
        median, p90 = ms_median_p90(meter.cpu[name])
        queries = meter.queries[name]
        database = meter.database[name]
        mean = f"{statistics.fmean(database) * 1000:.2f}" if database else "—"
        print(
            f"| {name} | {median} | {p90} | "
            f"{statistics.median(queries):g} / {max(queries)} | {mean} |"
        )
    if args.cprofile:
        stats = pstats.Stats(meter.profiler).sort_stats("cumulative")
        print(
            f"{stats.total_calls / len(meter.cpu[args.cprofile]):,.0f} function calls "
            f"per {args.cprofile} request"
        )
        stats.print_stats(45)
    return 0


if __name__ == "__main__":
    sys.exit(main())
