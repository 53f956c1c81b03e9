"""Webhooks on real parts: a study opened by the command line's code queues its delivery on
Redis, a `heartbench worker` sends it to a receiver that is down, retries with back-off, and
delivers once the receiver is back; the log in the database shows both attempts."""

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders.stack import Stack, run, tool, wait_for
from tests.builders.webhook_receiver import Receiver
from tests.builders.webhooks import SECRET
from tests.conftest import require
from tests.services import free_port, scratch_database

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

HEARTBENCH = str(Path(sys.executable).parent / "heartbench")
SHOW = (
    "import json; from webhooks.models import Delivery; "
    "print(json.dumps([[d.attempts, d.last_status, bool(d.delivered_at), d.history] "
    "for d in Delivery.objects.all()]))"
)


@pytest.fixture
def worker_env(tmp_path) -> Iterator[dict]:
    base, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    require(base.startswith("postgres"), "needs PostgreSQL: run under tests.services --postgres")
    require(bool(redis), "needs Redis: run under tests.services --redis")
    with scratch_database(base, prefix="heartbench_hooks") as url:
        yield {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
            "DATABASE_URL": url,
            "CELERY_BROKER_URL": redis.rsplit("/", 1)[0] + "/8",  # its own: no other queues
            "REDIS_URL": redis,
            "HEARTBENCH_LOG_LEVEL": "INFO",
            "HEARTBENCH_WEBHOOK_BACKOFF_SECONDS": "2",
            "HEARTBENCH_WEBHOOK_ATTEMPTS": "4",
            "HEARTBENCH_BASE_URL": "https://heartbench.example.org",
        }


def test_a_worker_retries_a_receiver_that_is_down_until_it_is_back(worker_env, tmp_path):
    import redis as redis_client

    redis_client.Redis.from_url(worker_env["CELERY_BROKER_URL"]).flushdb()
    run(worker_env, HEARTBENCH, "migrate", "--no-input")
    port = free_port()
    create = (
        "from webhooks.models import Endpoint; "
        f"Endpoint.objects.create(name='crm', url='http://127.0.0.1:{port}/hook', "
        f"secret='{SECRET}', events=['study.opened'])"
    )
    run(worker_env, HEARTBENCH, "shell", "-c", create)
    stack = Stack(worker_env, tmp_path)
    receiver = Receiver(secret=SECRET, port=port)
    try:
        stack.start("worker", HEARTBENCH, "worker", "--queues", "reports", "--concurrency", "1")
        wait_for(lambda: " ready." in stack.log("worker"), timeout=120, what="worker ready")
        tool(worker_env, "tests.integration.stacktool", "study", "hooked", "--cases", "1")
        wait_for(
            lambda: "attempt 1: ConnectError" in stack.log("worker"),
            timeout=60,
            what="the first attempt, refused",
        )
        receiver.start()  # the receiver is back before the retry, 2 s later
        wait_for(lambda: receiver.requests, timeout=60, what="the retry")
        # The worker records the attempt after the answer: read until it is recorded.
        wait_for(lambda: _recorded(worker_env), timeout=120, what="the delivery recorded")
        [[attempts, status, delivered, history]] = _deliveries(worker_env)
    finally:
        stack.stop_all()
        receiver.stop()
    # Refused while the receiver was down (once, or more on a machine too busy to start it
    # within the back-off), then delivered at the first attempt after it was back.
    *refused, answered = history
    assert (attempts, status, delivered) == (len(history), 200, True) and refused
    assert all(h["status"] is None and h["error"].startswith("ConnectError") for h in refused)
    assert answered["status"] == 200
    [request] = receiver.requests
    assert request["signed"] and request["payload"]["event"] == "study.opened"
    assert request["payload"]["data"]["study"] == "hooked"
    assert request["payload"]["links"]["dashboard"].startswith("https://heartbench.example.org/")


def _deliveries(env: dict) -> list:
    return json.loads(run(env, HEARTBENCH, "shell", "-c", SHOW).strip().splitlines()[-1])


def _recorded(env: dict) -> bool:
    return any(delivered for _attempts, _status, delivered, _history in _deliveries(env))
