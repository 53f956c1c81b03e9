"""The production stack on real parts: PostgreSQL, Redis, two Celery workers, gunicorn.

Runs inside the PostgreSQL + Redis pass of `make test` (`python -m tests.services --postgres
--redis`) on a database of its own, migrated by `heartbench migrate`. A judge run is queued on
Redis, shared by two `heartbench worker` processes against the fake endpoint running in this
process; one worker is killed with SIGKILL in the middle of a chunk; the chunk comes back after
the (shortened) visibility timeout, the other worker finishes it, and every verdict is stored
exactly once, while a chunk longer than that timeout stays with its living worker (which
renews it). gunicorn serves the same database in production mode.
"""

import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from benchmark.llm.fake_server import FakeLLM, fake_verdict
from tests.builders.stack import BIN, STACKTOOL, Stack, is_up, run, tool, wait_for
from tests.conftest import require
from tests.services import free_port

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

DBTOOL = "tests.benchmark.llm.dbtool"
CASES = 16
CHUNK = 2  # responses per chunk task: 8 chunks
LATENCY = 0.6  # seconds per fake reply; a chunk takes ~1.2 s with one request at a time
VISIBILITY = 6  # seconds before an unacknowledged chunk is handed out again
API_KEY = "sk-integration-" + secrets.token_hex(8)
RECEIVED = re.compile(r"Task benchmark\.tasks\.judge_chunk_task\[([0-9a-f-]+)\] received")
SUCCEEDED = re.compile(r"Task benchmark\.tasks\.judge_chunk_task\[([0-9a-f-]+)\] succeeded")


@pytest.fixture(scope="module")
def stack(database_url, tmp_path_factory) -> Iterator[Stack]:
    redis = os.environ.get("REDIS_URL", "")
    require(bool(redis), "needs Redis: run under tests.services --redis")
    require(shutil.which("gunicorn", path=str(BIN)) is not None, "gunicorn is not installed")
    folder = tmp_path_factory.mktemp("stack")
    # The broker gets a Redis database of its own, so no other test's keys meet the queues.
    broker = redis.rsplit("/", 1)[0] + "/7"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker,
        "REDIS_URL": redis,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY),
        "CELERY_RESTORE_INTERVAL": "1",
        "HEARTBENCH_JUDGE_CHUNK": str(CHUNK),
        "HEARTBENCH_API_KEY": API_KEY,
        "HEARTBENCH_LOG_LEVEL": "INFO",
        "HEARTBENCH_STATIC_ROOT": str(folder / "static"),
        # Production, as the deployment guide sets it up behind a TLS proxy.
        "HEARTBENCH_ENV": "production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_TRUST_X_FORWARDED_PROTO": "true",
    }
    import redis as redis_client

    redis_client.Redis.from_url(broker).flushdb()
    heartbench = str(BIN / "heartbench")
    run(env, heartbench, "migrate", "--no-input")
    run(env, heartbench, "collectstatic", "--no-input")
    tool(env, DBTOOL, "seed", "--model", "victim", "--cases", str(CASES))
    stack = Stack(env, folder)
    try:
        for name in ("w1", "w2"):
            stack.start(name, heartbench, "worker", "--queues", "judge,generate,reports",
                        "--concurrency", "1", "--hostname", f"{name}@%h")  # fmt: skip
        port = free_port()
        stack.start("web", str(BIN / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
                    "--workers", "2", "--access-logfile", "-")  # fmt: skip
        stack.base_url = f"http://127.0.0.1:{port}"
        for name in ("w1", "w2"):
            wait_for(lambda n=name: " ready." in stack.log(n), timeout=120, what=f"{name} ready")
        wait_for(lambda: is_up(stack.base_url), timeout=60, what="gunicorn up")
        yield stack
    finally:
        stack.stop_all()


def test_gunicorn_serves_pages_static_files_and_the_api_in_production_mode(stack):
    https = {"X-Forwarded-Proto": "https"}
    with httpx.Client(base_url=stack.base_url, headers=https, timeout=30) as client:
        page = client.get("/login/")
        assert page.status_code == 200 and "csrfmiddlewaretoken" in page.text
        assert page.headers["strict-transport-security"].startswith("max-age=31536000")
        assert "secure" in page.headers["set-cookie"].lower()
        # Whitenoise serves the hashed name collectstatic wrote, cacheable for ever.
        css = re.search(r'href="(/static/frontend/workbench\.[0-9a-f]{12}\.css)"', page.text)
        assert css, "the page links the hashed stylesheet"
        static = client.get(css.group(1))
        assert static.status_code == 200 and "max-age=315360000" in static.headers["cache-control"]
        icon = re.search(
            r'rel="icon" href="(/static/frontend/favicon\.[0-9a-f]{12}\.svg)"', page.text
        )
        assert icon and client.get("/favicon.ico").headers["location"] == icon.group(1)
        assert client.get(icon.group(1)).headers["content-type"] == "image/svg+xml"

        assert client.get("/api/v1/studies/").status_code == 401
        tool(stack.env, STACKTOOL, "user", "reader", "a-long-password-1")
        token = client.post(
            "/api/v1/auth/token/", json={"username": "reader", "password": "a-long-password-1"}
        )
        assert token.status_code == 200, token.text
        studies = client.get(
            "/api/v1/studies/", headers={"Authorization": f"Token {token.json()['token']}"}
        )
        assert studies.status_code == 403  # a login, but not an expert
        # Unknown host names are refused in production.
        assert client.get("/login/", headers={"Host": "evil.example"}).status_code == 400


def test_a_judge_run_shared_by_two_workers_survives_sigkill_with_every_verdict_once(stack):
    with FakeLLM(latency=LATENCY) as fake:
        queue = ("queue", "--model", "victim", "--base-url", fake.base_url)
        run_id = tool(stack.env, STACKTOOL, *queue).strip()

        def in_flight(name: str) -> set[str]:
            log = stack.log(name)
            return set(RECEIVED.findall(log)) - set(SUCCEEDED.findall(log))

        # Kill w1 while it holds a chunk it has started but not finished, after it has
        # finished at least one (so both workers demonstrably share the run).
        wait_for(
            lambda: SUCCEEDED.search(stack.log("w1")) and in_flight("w1"),
            timeout=120,
            what="w1 to finish a chunk and start another",
        )
        time.sleep(LATENCY / 2)  # mid-request
        lost = in_flight("w1")
        stack.kill("w1")
        assert lost and fake.count() < CASES

        def status() -> dict:
            return json.loads(tool(stack.env, STACKTOOL, "status", run_id))

        # The run says which chunk waits on the dead worker, until another takes it.
        assert any(worker.startswith("w1@") for worker in status()["held"]), status()
        wait_for(lambda: status()["status"] == "finished", timeout=180, what="the run to finish")
        assert status()["held"] == []

    # The chunk w1 lost was handed out again and w2 finished it.
    assert lost <= set(SUCCEEDED.findall(stack.log("w2")))
    assert SUCCEEDED.findall(stack.log("w1")), "w1 did a share before it died"
    report = json.loads(tool(stack.env, DBTOOL, "report", "--model", "victim"))
    assert report["verdicts"] == report["items"] == CASES * 4
    assert report["per_item_max"] == 1 and len(report["runs"]) == 1
    assert report["states"] == {
        text: "met" if fake_verdict(text) else "not_met" for text in report["states"]
    }
    final = status()["stats"]
    assert (final["done"], final["total"], final["errors"]) == (CASES * 4, CASES * 4, 0)
    # The endpoint's key was used but is written nowhere: not in any process's log.
    for name in ("w1", "w2", "web"):
        assert API_KEY not in stack.log(name)
    # The run's end queued its dataset's board on the reports queue, and a worker stored it:
    # the leaderboard's first reader reads a row (benchmark.services.warming).
    boards = "SELECT count(*) FROM benchmark_storedboard"
    wait_for(lambda: count(stack, boards) == 1, timeout=60, what="a worker to store the board")


def test_a_chunk_longer_than_the_visibility_timeout_stays_with_its_living_worker(stack):
    """Each worker renews the tasks it holds (config/celery.py): a chunk that runs past the
    visibility timeout is not handed to the other worker while its own is alive, so no
    request is sent twice and every chunk task is received once."""
    cases, latency = 4, VISIBILITY * 0.75  # a chunk of two responses takes 1.5 × the timeout
    tool(stack.env, DBTOOL, "seed", "--model", "slow", "--cases", str(cases), "--dataset", "slow")

    def received() -> list[str]:
        return [t for name in ("w1", "w2") for t in RECEIVED.findall(stack.log(name))]

    before = set(received())
    with FakeLLM(latency=latency) as fake:
        queue = ("queue", "--model", "slow", "--base-url", fake.base_url)
        run_id = tool(stack.env, STACKTOOL, *queue).strip()

        def status() -> dict:
            return json.loads(tool(stack.env, STACKTOOL, "status", run_id))

        wait_for(lambda: status()["status"] == "finished", timeout=120, what="the slow run")
        assert fake.count() == cases  # one request a response: none sent twice
    chunks = [t for t in received() if t not in before]
    assert len(chunks) == cases // CHUNK and len(set(chunks)) == len(chunks), chunks


def count(stack: Stack, query: str) -> int:
    import psycopg

    with psycopg.connect(stack.env["DATABASE_URL"], autocommit=True) as conn:
        return conn.execute(query).fetchone()[0]


def test_a_study_closed_with_workers_has_its_report_stored_before_anyone_reads_it(stack):
    tool(stack.env, STACKTOOL, "study", "warmed", "--cases", "2")
    assert "closed" in run(stack.env, str(BIN / "heartbench"), "study", "close", "warmed", "--yes")
    reports = (
        "SELECT count(*) FROM validation_storedfigures f JOIN validation_study s"
        " ON s.id = f.study_id WHERE s.name = 'warmed' AND f.kind = 'report'"
    )
    wait_for(lambda: count(stack, reports) == 1, timeout=60, what="a worker to store the report")


def test_a_worker_started_on_new_code_stores_the_figures_people_read_again(stack):
    tool(stack.env, STACKTOOL, "study", "redeployed", "--cases", "2")
    run(stack.env, str(BIN / "heartbench"), "study", "close", "redeployed", "--yes")
    reports = (
        "SELECT count(*) FROM validation_storedfigures f JOIN validation_study s"
        " ON s.id = f.study_id WHERE s.name = 'redeployed' AND f.kind = 'report'"
    )
    wait_for(lambda: count(stack, reports) == 1, timeout=60, what="the report stored at close")
    # New code, as a deploy brings it: no row or cached report is this code's, nor is the
    # cache's mark that a worker has queued this code's figures.
    count(stack, "WITH gone AS (DELETE FROM validation_storedfigures RETURNING 1) SELECT 0")
    import redis

    cache = redis.Redis.from_url(stack.env["REDIS_URL"])
    for pattern in ("validation:report:*", "validation:after-deploy:*"):
        for key in cache.scan_iter(f"heartbench:*{pattern}"):
            cache.delete(key)
    stack.start("w3", str(BIN / "heartbench"), "worker", "--queues", "reports",
                "--hostname", "w3@%h")  # fmt: skip
    try:
        wait_for(lambda: count(stack, reports) == 1, timeout=90, what="the report stored again")
        assert "new code: figures of" in stack.log("w3")
    finally:
        stack.kill("w3")


GENERATED = re.compile(r"Task benchmark\.tasks\.generation_run_task\[([0-9a-f-]+)\] succeeded")


def test_a_generation_run_queued_as_the_admin_does_is_answered_by_a_worker(stack):
    with FakeLLM() as fake:
        args = ("generate", "--model", "writer", "--base-url", fake.base_url, "--cases", "3")
        run_id = tool(stack.env, STACKTOOL, *args).strip()

        def status() -> dict:
            return json.loads(tool(stack.env, STACKTOOL, "status", "--generation", run_id))

        wait_for(lambda: status()["status"] == "finished", timeout=120, what="the generation")
        assert fake.count() == 3
        assert fake.last_authorization == f"Bearer {API_KEY}"  # the worker's own key
    final = status()
    assert final["answers"] == 3
    assert (final["stats"]["done"], final["stats"]["total"], final["stats"]["errors"]) == (3, 3, 0)
    assert final["stats"]["options"] == {"concurrency": 1}
    ran = [name for name in ("w1", "w2") if GENERATED.search(stack.log(name))]
    assert len(ran) == 1, "one worker took the run's one task from the generate queue"
    for name in ("w1", "w2", "web"):
        assert API_KEY not in stack.log(name)


SYNTHESISED = re.compile(
    r"Task benchmark\.tasks\.construction_synthesis_run_task\[([0-9a-f-]+)\] succeeded"
)


def test_a_synthesis_run_queued_for_a_worker_drafts_every_rubric(stack):
    with FakeLLM() as fake:
        args = ("synthesize", "--model", "drafter", "--base-url", fake.base_url, "--drafts", "3")
        run_id = tool(stack.env, STACKTOOL, *args).strip()

        def status() -> dict:
            return json.loads(tool(stack.env, STACKTOOL, "status", "--synthesis", run_id))

        wait_for(lambda: status()["status"] == "finished", timeout=120, what="the synthesis")
        assert fake.count() == 3
        assert fake.last_authorization == f"Bearer {API_KEY}"  # the worker's own key
    # No standard written: the fake drafts three default abilities, a negative criterion and
    # the catastrophic one for each draft.
    assert status() == {"status": "finished", "done": 3, "total": 3, "errors": 0, "criteria": 15}
    ran = [name for name in ("w1", "w2") if SYNTHESISED.search(stack.log(name))]
    assert len(ran) == 1, "one worker took the run's one task from the generate queue"


WARM_DONE = re.compile(r"Task validation\.tasks\.study_figures_warm_task\[[0-9a-f-]+\] succeeded")


def test_a_worker_keeps_its_database_connection_from_task_to_task(stack):
    """A worker opens no new PostgreSQL session per task (Celery's Django fixup would close
    its connection around each one), here a closed study's figures asked for again and again."""
    import psycopg
    from celery import Celery

    tasks = 12

    def settled() -> int:
        return sum(len(WARM_DONE.findall(stack.log(name))) for name in ("w1", "w2"))

    with psycopg.connect(stack.env["DATABASE_URL"], autocommit=True) as conn:

        def sessions() -> int:
            query = "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
            return conn.execute(query).fetchone()[0]

        before, done = sessions(), settled()
        sender = Celery(broker=stack.env["CELERY_BROKER_URL"])
        for _ in range(tasks):  # a study that is gone: nothing to compute, in one read
            sender.send_task(
                "validation.tasks.study_figures_warm_task",
                kwargs={"study_id": -1},
                queue="reports",
            )
        wait_for(lambda: settled() == done + tasks, timeout=60, what="the figure tasks")
        # At most one new session per worker process (one that had none yet).
        assert sessions() - before <= 2


def test_heartbench_serve_opens_every_threads_connection_before_a_crowd_arrives(stack):
    """`heartbench serve` starts each worker's threads with their PostgreSQL sessions before
    the first request, and keeps them: a crowd arriving at once opens no session (a new one
    has none of its statements prepared)."""
    import psycopg

    workers, threads = 2, 3
    with psycopg.connect(stack.env["DATABASE_URL"], autocommit=True) as conn:

        def sessions() -> set[int]:
            query = (
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
            )
            return {pid for (pid,) in conn.execute(query)}

        before = sessions()
        port = free_port()
        stack.start("serve", str(BIN / "heartbench"), "serve", "--port", str(port),
                    "--workers", str(workers), "--threads", str(threads))  # fmt: skip
        try:
            wait_for(
                lambda: len(sessions() - before) >= workers * threads,
                timeout=60,
                what=f"{workers * threads} sessions opened by the served threads",
            )
            ready = sessions()
            base_url = f"http://127.0.0.1:{port}"
            wait_for(lambda: is_up(base_url), timeout=60, what="heartbench serve up")

            def ask(_: int) -> int:
                # A token the database is asked about: every request reads it there.
                with httpx.Client(base_url=base_url, timeout=30) as client:
                    bad = {"Authorization": "Token not-a-token"}
                    return client.get("/api/v1/studies/", headers=bad).status_code

            with ThreadPoolExecutor(max_workers=4 * workers * threads) as crowd:
                assert set(crowd.map(ask, range(8 * workers * threads))) == {401}
            assert sessions() == ready
        finally:
            stack.kill("serve")


def test_heartbench_serve_starts_and_says_so_when_its_threads_cannot_connect_ahead(stack):
    """A database not reachable when the workers start: each worker logs the threads that
    opened no connection and serves regardless (its requests connect as always)."""
    port = free_port()
    nowhere = f"postgres://heartbench@127.0.0.1:{free_port()}/none"  # nothing listens there
    stack.start("serve-alone", str(BIN / "heartbench"), "serve", "--port", str(port),
                "--workers", "1", "--threads", "2",
                env={**stack.env, "DATABASE_URL": nowhere})  # fmt: skip
    try:
        wait_for(lambda: is_up(f"http://127.0.0.1:{port}"), timeout=60, what="heartbench serve up")
        assert "2 of 2 threads opened no database connection ahead" in stack.log("serve-alone")
    finally:
        stack.kill("serve-alone")
