"""Broker down: a judge run queued while Redis is unreachable is kept, not lost.

A real ``redis-server`` of this test's own is stopped and started again on the same port. While
it is down, queuing a run answers at once, keeps the run pending in the database and marks it
as waiting; once Redis is back, the sweep that workers run when they reach the broker puts
exactly one message for the run on the judge queue.
"""

import contextlib
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
from kombu import pools as kombu_pools

from benchmark.models import JudgeRun
from benchmark.services.judge_chunks import judge_runs_dispatch_waiting
from benchmark.services.judging import judge_run_queue
from config.celery import app
from tests.benchmark.factories import JudgeFactory
from tests.benchmark.llm.factories import answered_dataset
from tests.conftest import require
from tests.services import free_port

pytestmark = pytest.mark.django_db


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


def judge_messages(url: str) -> list[dict]:
    import redis

    raw = redis.Redis.from_url(url).lrange("judge", 0, -1)
    return [json.loads(message) for message in raw]


def test_a_run_queued_while_the_broker_is_down_is_queued_once_it_is_back(
    broker, tmp_path, django_capture_on_commit_callbacks
):
    dataset, model = answered_dataset(cases=2)
    judge = JudgeFactory(prompt_template_version="heartbench-judge-zh-v1")
    run = JudgeRun.objects.create(judge=judge, model=model, dataset=dataset, source="engine")

    with django_capture_on_commit_callbacks(execute=True):
        judge_run_queue(run_id=run.pk)  # Redis is not running: no exception for the caller

    run.refresh_from_db()
    assert run.status == JudgeRun.Status.PENDING
    assert run.waiting_for_broker
    port = int(broker.rsplit(":", 1)[1].split("/")[0])
    with redis_on(port, tmp_path):
        assert judge_messages(broker) == []
        assert judge_runs_dispatch_waiting() == [run.pk]
        (message,) = judge_messages(broker)
        assert message["headers"]["task"] == "benchmark.tasks.judge_run_task"
        assert f"'run_id': {run.pk}" in message["headers"]["kwargsrepr"]
        run.refresh_from_db()
        assert not run.waiting_for_broker and run.status == JudgeRun.Status.PENDING
        # A second sweep finds nothing waiting: the run is on the queue once, not twice.
        assert judge_runs_dispatch_waiting() == []
        assert len(judge_messages(broker)) == 1
        # With the broker up, queuing goes straight through and marks nothing.
        with django_capture_on_commit_callbacks(execute=True):
            judge_run_queue(run_id=run.pk)
        assert len(judge_messages(broker)) == 2
        run.refresh_from_db()
        assert not run.waiting_for_broker
