"""Fixtures of the integration suite: a broker of a test's own, a database of a module's own."""

import os
import shutil
from collections.abc import Iterator

import pytest
from kombu import pools as kombu_pools

from config.celery import app
from tests.conftest import require
from tests.services import free_port, scratch_database


@pytest.fixture
def broker(tmp_path) -> Iterator[str]:
    """The Celery app pointed at a broker of this test's own (down until the test starts it)."""
    require(shutil.which("redis-server") is not None, "redis-server is not installed")
    url = f"redis://127.0.0.1:{free_port()}/0"
    saved = {k: app.conf[k] for k in ("broker_url", "broker_write_url", "task_always_eager")}
    # Without a broker the settings give producers an in-memory connection; a broker of its own
    # replaces both, as CELERY_BROKER_URL does in the environment.
    app.conf.update(broker_url=url, broker_write_url=None, task_always_eager=False)
    reset_pool()
    try:
        yield url
    finally:
        app.conf.update(saved)
        reset_pool()


def reset_pool() -> None:
    # Connections and producers are pooled on first use (even eager tasks take a producer);
    # dropping both pools makes the next use build them for the broker configured now.
    # kombu also keeps producer pools in a registry keyed by broker URL; without resetting it a
    # later test on the original URL gets the pool closed here ("Acquire on closed pool").
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    kombu_pools.reset()


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    base = os.environ.get("DATABASE_URL", "")
    require(base.startswith("postgres"), "needs PostgreSQL: run under tests.services --postgres")
    with scratch_database(base, prefix="heartbench_stack") as url:
        yield url
