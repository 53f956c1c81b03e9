"""Broker down: a judge run queued while Redis is unreachable is kept, not lost.

A real ``redis-server`` of this test's own is stopped and started again on the same port. While
it is down, queuing a run answers at once, keeps the run pending in the database and marks it
as waiting; once Redis is back, the sweep that workers run when they reach the broker puts
exactly one message for the run on the judge queue.
"""

import json

import pytest

from benchmark.models import JudgeRun
from benchmark.services.judge_chunks import judge_runs_dispatch_waiting
from benchmark.services.judging import judge_run_queue
from tests.builders.datasets import JudgeFactory
from tests.builders.llm import answered_dataset
from tests.builders.stack import redis_on

pytestmark = pytest.mark.django_db


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
