"""Broker down: a generation run queued while Redis is unreachable waits in the database and
is put on the ``generate`` queue once, when the sweep finds the broker back (the judge runs'
own dispatch code, :mod:`benchmark.services.dispatch`)."""

import json

import pytest

from benchmark.selectors.runs import run_progress_text
from benchmark.services.generation import (
    generation_queue,
    generation_run_queued_options,
    generation_runs_dispatch_waiting,
)
from tests.builders.datasets import DatasetFactory, ModelUnderTestFactory, case_with_rubric
from tests.builders.stack import redis_on

pytestmark = pytest.mark.django_db


def generate_messages(url: str) -> list[dict]:
    import redis

    raw = redis.Redis.from_url(url).lrange("generate", 0, -1)
    return [json.loads(message) for message in raw]


def test_a_generation_run_queued_while_the_broker_is_down_is_queued_once_it_is_back(
    broker,
    tmp_path,
    django_capture_on_commit_callbacks,
):
    dataset = DatasetFactory()
    case_with_rubric(dataset=dataset)
    model = ModelUnderTestFactory(base_url="http://127.0.0.1:9/v1")

    with django_capture_on_commit_callbacks(execute=True):
        run = generation_queue(model=model, dataset=dataset, options={"concurrency": 3})

    run.refresh_from_db()
    assert run.status == "pending" and run.waiting_for_broker
    assert "waiting for the broker" in run_progress_text(run=run)
    port = int(broker.rsplit(":", 1)[1].split("/")[0])
    with redis_on(port, tmp_path):
        assert generate_messages(broker) == []
        assert generation_runs_dispatch_waiting() == [run.pk]
        (message,) = generate_messages(broker)
        assert message["headers"]["task"] == "benchmark.tasks.generation_run_task"
        assert f"'run_id': {run.pk}" in message["headers"]["kwargsrepr"]
        run.refresh_from_db()
        assert not run.waiting_for_broker
        assert generation_run_queued_options(run=run) == {"concurrency": 3}
        assert generation_runs_dispatch_waiting() == []
        assert len(generate_messages(broker)) == 1
