"""The database restarted during labelling: the API recovers and no autosaved draft is lost.

gunicorn (production mode, two workers, persistent connections with health checks) serves a
database of this test's own on the PostgreSQL of the run; an expert claims a unit and autosaves
half of it, PostgreSQL is restarted with ``pg_ctl restart`` (every connection dies), and the
expert's next requests are answered with the draft intact, and the submit is stored once.
"""

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.db import connections

from tests.builders.stack import BIN, STACKTOOL, Stack, is_up, run, tool, wait_for
from tests.services import free_port

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


# The integration suite's own-database fixture (tests/integration/conftest.py), under this name.
@pytest.fixture(scope="module")
def own_database(database_url) -> str:
    return database_url


def restart_postgres(url: str) -> None:
    """``pg_ctl restart`` of the server behind the URL, as the user that owns its data."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        data = Path(conn.execute("SHOW data_directory").fetchone()[0])
    owner = data.stat()
    prefix = []
    if os.geteuid() == 0 and owner.st_uid != 0:  # PostgreSQL refuses to run as root
        prefix = ["setpriv", f"--reuid={owner.st_uid}", f"--regid={owner.st_gid}", "--clear-groups"]
    # The new server logs beside its data (owned by its user), so no pipe of ours stays open.
    log = data.parent / "restart.log"
    subprocess.run(
        [*prefix, "pg_ctl", "-D", str(data), "-l", str(log), "-m", "fast", "-w", "restart"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "LC_ALL": "C.UTF-8"},
        timeout=120,
    )


@pytest.fixture(scope="module")
def web(own_database, tmp_path_factory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("web")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "DATABASE_URL": own_database,
        "HEARTBENCH_STATIC_ROOT": str(folder / "static"),
        "HEARTBENCH_ENV": "production",
        "DJANGO_SECRET_KEY": "database-restart-test-" + "k" * 40,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    }
    env.pop("REDIS_URL", None)  # gold labels are computed in process; no broker in this test
    run(env, str(BIN / "heartbench"), "migrate", "--no-input")
    run(env, str(BIN / "heartbench"), "collectstatic", "--no-input")
    stack = Stack(env, folder)
    try:
        port = free_port()
        stack.start("web", str(BIN / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}",
                    "--workers", "2")  # fmt: skip
        stack.base_url = f"http://127.0.0.1:{port}"
        wait_for(lambda: is_up(stack.base_url), timeout=60, what="gunicorn up")
        yield stack
    finally:
        stack.stop_all()
        # This process's own connections died with the restart too: let them reconnect.
        connections.close_all()


def test_a_draft_survives_a_database_restart_and_the_submit_goes_through(web, own_database):
    token = tool(web.env, STACKTOOL, "study", "restart-study").strip().splitlines()[-1]
    auth = {"Authorization": f"Token {token}"}
    with httpx.Client(base_url=web.base_url, headers=auth, timeout=30) as client:
        claimed = client.post("/api/v1/assignments/next/", params={"study": "restart-study"})
        assert claimed.status_code == 201, claimed.text
        ident = claimed.json()["id"]
        criteria = claimed.json()["unit"]["criteria"]
        labels = [{"criterion": c["id"], "hit": i % 2 == 0} for i, c in enumerate(criteria)]
        half = labels[: len(labels) // 2]
        saved = client.put(f"/api/v1/assignments/{ident}/draft/", json={"labels": half})
        assert saved.status_code == 200, saved.text

        restart_postgres(own_database)

        # Every gunicorn worker held a connection that is now dead; each request is answered.
        for _ in range(6):
            page = client.get(f"/api/v1/assignments/{ident}/")
            assert page.status_code == 200, page.text
            draft = page.json()["draft"]
            assert {k: v["hit"] for k, v in draft.items()} == {
                label["criterion"]: label["hit"] for label in half
            }
        submitted = client.post(f"/api/v1/assignments/{ident}/submit/", json={"labels": labels})
        assert submitted.status_code == 201, submitted.text
        again = client.post(f"/api/v1/assignments/{ident}/submit/", json={"labels": labels})
        assert again.status_code == 200  # the same submission, stored once
        done = client.get("/api/v1/assignments/completed/")
        assert [row["id"] for row in done.json()["results"]] == [ident]
