"""Rewrite, reference and synthesis runs queued for a worker: each run model's Celery task is
registered for ``run_queue`` and routed to the ``generate`` queue; executed here in process (no
broker) against the fake endpoint with the model's limits; idempotent, and a run that cannot
start fails once with the reason."""

import io

import pytest
from django.core.management import call_command

from benchmark.llm.fake_server import REWRITTEN, FakeLLM
from benchmark.models import DraftCase, DraftCriterion, DraftResponse, ReferenceRun, SynthesisRun
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.dispatch import RUN_TASKS
from benchmark.services.draft_jobs import draft_run_queue
from benchmark.services.references import reference_run_start
from benchmark.services.rewrite import rewrite_run_start
from benchmark.services.synthesis import synthesis_run_start
from benchmark.tasks import (
    construction_reference_run_task,
    construction_rewrite_run_task,
    construction_synthesis_run_task,
)
from config.celery import app
from tests.builders.construction import BASE_SEEDS
from tests.builders.datasets import ModelUnderTestFactory

pytestmark = pytest.mark.django_db
TASKS = {
    "RewriteRun": construction_rewrite_run_task,
    "ReferenceRun": construction_reference_run_task,
    "SynthesisRun": construction_synthesis_run_task,
}


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


@pytest.fixture
def project():
    project = project_create(name="pilot", dataset_name="heartbench-pilot")
    seeds_import(project=project, path=BASE_SEEDS)
    return project


def test_each_run_model_has_its_task_on_the_generate_queue():
    registered = {model.__name__: task for model, task in RUN_TASKS.items()}
    for name, task in TASKS.items():
        assert registered[name].name == task.name
        assert app.amqp.router.route({}, task.name)["queue"].name == "generate"


def test_queued_runs_rewrite_answer_and_draft_criteria_in_turn(
    project, fake, django_capture_on_commit_callbacks
):
    model = ModelUnderTestFactory(
        name="helper", base_url=fake.base_url, parameters={"limits": {"concurrency": 2}}
    )
    runs = []
    for start in (rewrite_run_start, reference_run_start, synthesis_run_start):
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            run = start(project=project, model=model)
            draft_run_queue(run=run)
        assert len(callbacks) == 1
        run.refresh_from_db()
        assert (run.status, run.done, run.total, run.errors) == ("finished", 3, 3, 0)
        runs.append(run)
    assert all(d.rewrite[0]["content"].startswith(REWRITTEN) for d in DraftCase.objects.all())
    assert DraftResponse.objects.filter(from_rewrite=True).count() == 3
    assert DraftCriterion.objects.values("draft").distinct().count() == 3
    assert fake.count() == 9
    # Idempotent: a finished run's task sends nothing.
    for run in runs:
        assert TASKS[type(run).__name__].delay(run_id=run.pk).get() == {"status": "finished"}
    assert fake.count() == 9


def test_a_run_that_cannot_start_fails_once_with_the_reason(
    project, fake, django_capture_on_commit_callbacks
):
    model = ModelUnderTestFactory(name="no-url", base_url="")
    with django_capture_on_commit_callbacks(execute=True):
        run = synthesis_run_start(project=project, model=model)
        draft_run_queue(run=run)
    run.refresh_from_db()
    assert run.status == "failed" and "has no base URL" in run.error
    assert fake.count() == 0 and not DraftCriterion.objects.exists()


def test_a_lost_endpoint_is_retried_a_bounded_number_of_times(project, fake, monkeypatch):
    model = ModelUnderTestFactory(name="flaky", base_url=fake.base_url)
    run = reference_run_start(project=project, model=model)
    calls = []

    def broken(**kwargs):
        calls.append(kwargs["run"].pk)
        raise ConnectionError("database went away")

    monkeypatch.setattr("benchmark.tasks.reference_run_execute", broken)
    app.conf.task_eager_propagates = False
    try:
        result = construction_reference_run_task.apply(kwargs={"run_id": run.pk})
    finally:
        app.conf.task_eager_propagates = True
    assert result.failed() and isinstance(result.result, ConnectionError)
    assert calls == [run.pk] * (1 + construction_reference_run_task.max_retries)
    assert ReferenceRun.objects.get().status == "pending" and not DraftResponse.objects.exists()
    assert not SynthesisRun.objects.exists()


def test_synthesize_queue_hands_the_run_to_a_worker(
    project, fake, django_capture_on_commit_callbacks
):
    # No broker here: the worker is this process, once the command's transaction commits.
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        call_command("construct", "synthesize", "--project", "pilot", "--model", "queued",
                     "--base-url", fake.base_url, "--queue", stdout=out)  # fmt: skip
    run = SynthesisRun.objects.get()
    assert f"synthesis run {run.pk} queued for a worker" in out.getvalue()
    assert len(callbacks) == 1 and run.status == "finished"
    assert run.model.base_url == fake.base_url and fake.count() == 3
    assert DraftCriterion.objects.values("draft").distinct().count() == 3
