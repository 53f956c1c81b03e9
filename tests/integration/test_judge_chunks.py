"""A judge run split into chunk tasks (eager here; real workers in test_workers.py)."""

import pytest
from django.core.management import CommandError, call_command

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun, Verdict
from benchmark.services.judge_chunks import judge_run_close_if_done, judge_run_split
from benchmark.services.judging import judge_run_queue
from tests.builders.datasets import JudgeFactory
from tests.builders.llm import answered_dataset, expected_states, stored_states


def make_run(fake: FakeLLM, *, cases: int) -> JudgeRun:
    dataset, model = answered_dataset(cases=cases)
    judge = JudgeFactory(
        base_url=fake.base_url,
        prompt_template_version="heartbench-judge-zh-v1",
        parameters={"limits": {"concurrency": 2}},
    )
    return JudgeRun.objects.create(judge=judge, model=model, dataset=dataset, source="engine")


@pytest.mark.django_db
def test_a_run_in_chunks_judges_everything_once_and_adds_up_its_accounting(
    settings, django_capture_on_commit_callbacks
):
    settings.HEARTBENCH_JUDGE_CHUNK = 2
    with FakeLLM() as fake:
        run = make_run(fake, cases=5)
        assert [len(c) for c in judge_run_split(run_id=run.pk, chunk_size=2)] == [2, 2, 1]
        with django_capture_on_commit_callbacks(execute=True):
            judge_run_queue(run_id=run.pk)
        run.refresh_from_db()
        assert run.status == JudgeRun.Status.FINISHED and run.finished_at is not None
        assert stored_states(run) == expected_states(run)
        # Three chunks each added their own calls: the run's total is the sum, not the last.
        assert run.calls == fake.count() == 5
        assert (run.done, run.total, run.errors) == (20, 20, 0)
        # Queued again: nothing left, no chunk, nothing sent.
        with django_capture_on_commit_callbacks(execute=True):
            judge_run_queue(run_id=run.pk)
        assert fake.count() == 5


@pytest.mark.django_db
def test_a_chunk_run_twice_stores_nothing_twice():
    from benchmark.services.judge_chunks import judge_chunk_execute
    from benchmark.services.judging import EngineOptions

    with FakeLLM() as fake:
        run = make_run(fake, cases=3)
        (chunk,) = judge_run_split(run_id=run.pk, chunk_size=10)
        options = EngineOptions(concurrency=2)
        judge_chunk_execute(run_id=run.pk, response_ids=chunk[:2], options=options)
        assert not judge_run_close_if_done(run_id=run.pk)
        judge_chunk_execute(run_id=run.pk, response_ids=chunk, options=options)
        judge_chunk_execute(run_id=run.pk, response_ids=chunk, options=options)
        assert Verdict.objects.filter(run=run).count() == 12
        assert fake.count() == 3
        run.refresh_from_db()
        assert run.status == JudgeRun.Status.FINISHED


def test_worker_command_refuses_without_a_broker_or_with_an_unknown_queue(settings):
    settings.CELERY_BROKER_URL = ""
    with pytest.raises(CommandError, match="CELERY_BROKER_URL is not set"):
        call_command("worker")
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    with pytest.raises(CommandError, match="unknown queue"):
        call_command("worker", "--queues", "judge,leaderboards")


def test_waiting_runs_are_shown_as_such_and_swept_by_a_scheduled_task(settings):
    from benchmark.models import GenerationRun
    from benchmark.selectors.runs import run_progress_text
    from config.celery import app

    waiting = GenerationRun(waiting_for_broker=True)
    assert "waiting for the broker" in run_progress_text(run=waiting)
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled == {
        "benchmark.tasks.judge_dispatch_waiting_task",
        "benchmark.tasks.generation_dispatch_waiting_task",
        "benchmark.tasks.construction_dispatch_waiting_task",
    }
    app.loader.import_default_modules()
    assert scheduled <= set(app.tasks)
