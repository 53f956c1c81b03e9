"""The read side at a million labels: dashboard, study report and leaderboard, cold and warm.

    python -m tests.services --postgres -- .venv/bin/python benchmarks/read_scale.py
    ... benchmarks/read_scale.py --before main      # the same database read by main's code too

Builds once, into a scratch database on the server of ``DATABASE_URL`` kept for the whole run,
the platform of ``benchmarks/dashboard.py``'s generator at issue 16's scale: 1,126 synthetic
cases × 10 criteria, 30 models with a finished judge run each (337,800 verdicts, plus a
running run with 12 % errors), 200 experts, 20 studies (16 open, 4 closed) of 30 experts over
2,000 units (4 models on 500 sampled cases) — 1,500 rated by three experts and 500 by one, so
100,000 rating submissions and 1,000,000 labels (one ``annotation.Label`` row per criterion of
a rating) — with the majority as gold on the units rated three times (all of them in a closed
study, one in two in an open one).

Each page is then timed in processes of its own, started as `heartbench serve` starts
(``config.cli.django_setup``: the start-up objects frozen; ``urls_load``: the URLconf loaded
before the workers fork): cold is the first request of a fresh process (Django set up, the
views' own lazy imports not done yet), once with the cache emptied and
once more in a new process with the cache the first left (as after a restart), warm the median
of ``--requests`` more requests in the first process; figures are ms of the clock / ms of the
web process's CPU (SQL queries): on a shared machine the CPU time moves less with the load.
Pages: the dashboard overview and one open study's page, one closed study's report as the
admin's web page and as the API's JSON, and the leaderboard of the 30 models with the judge's
badge (from a closed study). With ``--before REV`` the database is first migrated and read by
that revision's code (checked out in a temporary git worktree), then migrated by this tree's
code and read again: before and after in one run.

With ``--after-change`` the pages whose figures are kept as data (the closed study's report,
the leaderboard) are read as after a change that leaves no stored row (a close, gold after it,
a judge run's end): once computed by their first reader, once after the task a worker runs for
that change (``benchmark.services.warming``), timed in a process of its own.
"""

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASET, CLOSED, OPEN = "dash:v1", "dash-study-04", "dash-study-00"
PAGES = [
    ("dashboard overview", "admin", "/admin/dashboard/"),
    ("dashboard, one study", "admin", f"/admin/dashboard/studies/{OPEN}/"),
    ("study report, web page", "admin", f"/admin/studies/{CLOSED}/report/"),
    ("study report, JSON", "admin", f"/api/v1/admin/studies/{CLOSED}/report/"),
    ("leaderboard, 30 models", "expert", f"/leaderboard/?dataset={DATASET}"),
]
# Pages whose figures are kept as data: what a change leaves without a row, for the worker.
AFTER_CHANGE = {
    "study report, web page": "report",
    "study report, JSON": "report",
    "leaderboard, 30 models": "board",
}
SCALE = dict(cases=1126, experts=200, studies=20, model_count=30, study_models=4,
             members_per_study=30)  # fmt: skip


def _django(code: Path, *, migrate: bool) -> None:
    sys.path.insert(0, str(code))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
    # As `heartbench serve` starts: Django set up with its objects frozen out of the
    # collector's passes (config.cli.django_setup), and the URLconf loaded where that code's
    # serve loads it before forking (config.cli.urls_load), so a page's figures are the served
    # process's.
    from config import cli

    cli.django_setup()
    if hasattr(cli, "urls_load") and not migrate:
        cli.urls_load()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)


def child_build(code: Path, units: int) -> dict:
    """Migrate with ``code``'s migrations, then generate with this tree's generator."""
    import importlib.util

    _django(code, migrate=True)
    spec = importlib.util.spec_from_file_location(
        "dash_generator", ROOT / "benchmarks/dashboard.py"
    )
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    from django.contrib.auth import get_user_model

    from annotation.models import Expert

    started = time.perf_counter()
    # Three quarters of the units rated three times, 10 criteria: 2,000 units make 1,000,000.
    labels = SCALE["studies"] * (units * 3 // 4 * 3 + units // 4) * 10
    made = generator.generate(**SCALE, units_per_study=units, labels=labels)
    get_user_model().objects.create_superuser("scale-admin", password="!")
    viewer = get_user_model().objects.create_user("scale-expert", password="!")
    Expert.objects.create(user=viewer, display_name="viewer")
    return {**made, "seconds": time.perf_counter() - started}


def child_measure(
    code: Path, url: str, who: str, requests: int, *, profile: bool, clear: bool
) -> dict:
    """One page in this fresh process: the first request (cold; with ``clear``, the cache
    emptied first), then the warm median; with ``profile``, cProfile's cumulative top 30 of
    the cold request on stderr."""
    import cProfile
    import pstats

    _django(code, migrate=False)
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client

    if clear:
        cache.clear()
    client = Client()
    client.force_login(get_user_model().objects.get(username=f"scale-{who}"))
    timings, cpu, queries = [], [], []
    profiler = cProfile.Profile() if profile else None
    for attempt in range(requests + 1):
        count = []
        if profiler and not attempt:
            profiler.enable()
        started, started_cpu = time.perf_counter(), time.process_time()
        with connection.execute_wrapper(lambda execute, *a, seen=count: seen.append(1) or
                                        execute(*a)):  # fmt: skip
            response = client.get(url)
        timings.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        if profiler and not attempt:
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
        queries.append(len(count))
        assert response.status_code == 200, (url, response.status_code)
    return {
        "cold_ms": timings[0],
        "cold_cpu_ms": cpu[0],
        "warm_ms": statistics.median(timings[1:]) if requests else None,
        "warm_cpu_ms": statistics.median(cpu[1:]) if requests else None,
        "cold_queries": queries[0],
        "warm_queries": queries[-1],
        "bytes": len(response.content),
    }


def child_breakdown(code: Path) -> dict:
    """Where a cold report's time goes, in a fresh process: loading the report's modules
    (numpy, scipy), gathering the study from the database, the statistics, the HTML."""
    _django(code, migrate=False)
    started = time.perf_counter()
    from validation.report import report_compute, report_render
    from validation.report.selectors import study_report_data
    from validation.selectors import study_get
    from validation.statistics import BootstrapSettings

    imported = time.perf_counter()
    data = study_report_data(study=study_get(name=CLOSED))
    gathered = time.perf_counter()
    report = report_compute(data=data, bootstrap=BootstrapSettings())
    computed = time.perf_counter()
    report_render(report, fmt="html")
    return {
        "imports_s": imported - started,
        "data_s": gathered - imported,
        "statistics_s": computed - gathered,
        "html_s": time.perf_counter() - computed,
        "items": data.n_items,
        "raters": len(data.experts),
        "cases": data.n_cases,
    }


def child_forget(code: Path, what: str) -> dict:
    """A change's aftermath: the stored rows of ``what`` gone, the cache emptied."""
    _django(code, migrate=False)
    from django.core.cache import cache

    from benchmark.models import StoredBoard
    from validation.models import StoredFigures

    if what == "report":
        StoredFigures.objects.filter(study__name=CLOSED).delete()
    else:
        StoredBoard.objects.all().delete()
    cache.clear()
    return {}


def child_warm(code: Path, what: str) -> dict:
    """The worker's task for ``what`` in a fresh process: seconds of clock and of CPU."""
    _django(code, migrate=False)
    from benchmark.selectors.datasets import dataset_resolve
    from benchmark.services.stored_board import leaderboard_warm
    from validation.selectors import study_get
    from validation.services.stored import study_figures_warm

    started, started_cpu = time.perf_counter(), time.process_time()
    if what == "report":
        study_figures_warm(study_id=study_get(name=CLOSED).pk)
    else:
        leaderboard_warm(dataset_id=dataset_resolve(name=DATASET).pk)
    return {"s": time.perf_counter() - started, "cpu_s": time.process_time() - started_cpu}


def _after_change(code: Path) -> dict[str, dict]:
    found = {}
    for label, who, url in PAGES:
        what = AFTER_CHANGE.get(label)
        if what is None:
            continue
        _child(code, "forget", what)
        computed = _child(code, "measure", url, who, "0", "0", "1")
        _child(code, "forget", what)
        task = _child(code, "warm", what)
        read = _child(code, "measure", url, who, "0", "0", "1")
        found[label] = {"computed": computed, "task": task, "read": read}
    return found


def _child(code: Path, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(code), *args],
        env=env, cwd=code, capture_output=True, text=True,
    )  # fmt: skip
    if out.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{out.stderr}")
    sys.stderr.write(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _read(code: Path, requests: int, profile: str | None) -> dict[str, dict]:
    """Each page in a fresh process with the cache emptied, then in another fresh process
    with the cache the first one left (as after a restart: the cache is Redis or files)."""
    found = {}
    for label, who, url in PAGES:
        asked = "1" if label == profile else "0"
        empty = _child(code, "measure", url, who, str(requests), asked, "1")
        kept = _child(code, "measure", url, who, "0", "0", "0")
        found[label] = {
            **empty,
            "kept_ms": kept["cold_ms"],
            "kept_cpu_ms": kept["cold_cpu_ms"],
            "kept_queries": kept["cold_queries"],
        }
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also read with this git revision")
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--units", type=int, default=2000, help="per study (2,000: 1M labels)")
    parser.add_argument("--keep", action="store_true", help="keep the database, print its URL")
    parser.add_argument(
        "--built",
        action="store_true",
        help="DATABASE_URL already holds a kept build: read it, build nothing",
    )
    parser.add_argument(
        "--after-change",
        action="store_true",
        help="only the kept pages, first read after a change: computed, or after the worker",
    )
    parser.add_argument(
        "--cprofile",
        metavar="PAGE",
        choices=[label for label, *_ in PAGES],
        help="profile that page's cold request (stderr)",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        code, what, *rest = args.child
        if what == "build":
            result = child_build(Path(code), int(rest[0]))
        elif what == "breakdown":
            result = child_breakdown(Path(code))
        elif what == "forget":
            result = child_forget(Path(code), rest[0])
        elif what == "warm":
            result = child_warm(Path(code), rest[0])
        elif what == "migrate":
            _django(Path(code), migrate=True)
            result = {}
        else:
            url, who, requests, profile, clear = rest
            result = child_measure(Path(code), url, who, int(requests), profile=profile == "1",
                                   clear=clear == "1")  # fmt: skip
        print(json.dumps(result))
        return 0
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        print("needs PostgreSQL: run under `python -m tests.services --postgres --` or set "
              "DATABASE_URL", file=sys.stderr)  # fmt: skip
        return 2
    sys.path.insert(0, str(ROOT))
    from tests.services import scratch_database

    if args.built or args.keep:
        database = contextlib.nullcontext(base)
        if args.keep:
            import psycopg

            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute("CREATE DATABASE heartbench_read_scale")
            database = contextlib.nullcontext(base.rsplit("/", 1)[0] + "/heartbench_read_scale")
    else:
        database = scratch_database(base, prefix="heartbench_read_scale")
    with (
        database as url,
        tempfile.TemporaryDirectory() as data,
        tempfile.TemporaryDirectory() as checkout,
    ):
        os.environ.update(DATABASE_URL=url, HEARTBENCH_DATA_DIR=data)
        before = None
        if args.before:
            before = Path(checkout) / "before"
            subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before],
                           cwd=ROOT, check=True, capture_output=True)  # fmt: skip
        try:
            made = None if args.built else _child(before or ROOT, "build", str(args.units))
            figures, parts = {}, {}
            if args.after_change:
                _child(ROOT, "migrate")
                changed = _after_change(ROOT)
            else:
                if before:
                    figures["before"] = _read(before, args.requests, args.cprofile)
                    parts["before"] = _child(before, "breakdown")
                _child(ROOT, "migrate")
                figures["after"] = _read(ROOT, args.requests, args.cprofile)
                parts["after"] = _child(ROOT, "breakdown")
        finally:
            if before:
                subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT,
                               check=True)  # fmt: skip
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M %Z')}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")  # fmt: skip
    if args.keep:
        print(f"Kept: DATABASE_URL={url}")
    if made:
        print(f"Data: {made['experts']} experts, {made['studies']} studies, "
              f"{made['units']:,} units, {made['submissions']:,} rating submissions, "
              f"{made['labels']:,} labels, {made['verdicts']:,} verdicts; "
              f"built in {made['seconds']:.0f} s\n")  # fmt: skip
    if args.after_change:
        _print_after_change(changed)
        return 0
    columns = list(figures)
    print("| page | " + " | ".join(
        f"{c}: cold, cache emptied | {c}: cold, cache kept | {c}: warm" for c in columns
    ) + " | bytes |")  # fmt: skip
    print("|---" * (3 * len(columns) + 2) + "|")
    for label, _who, _url in PAGES:
        cells = []
        for c in columns:
            r = figures[c][label]
            cells += [
                f"{r[f'{when}_ms']:.0f} / {r[f'{when}_cpu_ms']:.0f} ({r[f'{when}_queries']})"
                for when in ("cold", "kept", "warm")
            ]
        print(f"| {label} | " + " | ".join(cells) + f" | {r['bytes']:,} |")
    r = parts["after"]
    print(f"\nA cold report of {CLOSED} ({r['items']:,} items, {r['cases']} cases, "
          f"{r['raters']} raters), seconds, in a fresh process:\n")  # fmt: skip
    print("| code | loading numpy, scipy and the report | gathering from the database "
          "| statistics | HTML |\n|---|---|---|---|---|")  # fmt: skip
    for name, r in parts.items():
        print(f"| {name} | {r['imports_s']:.2f} | {r['data_s']:.2f} | {r['statistics_s']:.2f} "
              f"| {r['html_s']:.2f} |")  # fmt: skip
    return 0


def _print_after_change(changed: dict[str, dict]) -> None:
    print("The first request after a change, in a fresh process with the cache emptied; ms of "
          "the clock / ms of CPU (SQL queries):\n")  # fmt: skip
    print("| page | computed by its first reader | the worker's task, s (CPU s) "
          "| read after the task |\n|---|---|---|---|")  # fmt: skip
    for label, r in changed.items():
        cells = [f"{r[k]['cold_ms']:.0f} / {r[k]['cold_cpu_ms']:.0f} ({r[k]['cold_queries']})"
                 for k in ("computed", "read")]  # fmt: skip
        task = f"{r['task']['s']:.2f} ({r['task']['cpu_s']:.2f})"
        print(f"| {label} | {cells[0]} | {task} | {cells[1]} |")


if __name__ == "__main__":
    sys.exit(main())
