"""Generation runs queued from the admin: a Celery task (eager here, no broker) against the fake
endpoint, progress in the admin list, bounded and idempotent like the judge's tasks."""

import pytest
from django.urls import reverse

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import GenerationRun, Response
from benchmark.services.generation import generation_queue, generation_run_queued_options
from benchmark.tasks import generation_run_task
from config.celery import app
from tests.builders.datasets import DatasetFactory, ModelUnderTestFactory, case_with_rubric

pytestmark = pytest.mark.django_db
ADD = "admin:benchmark_generationrun_add"
LIST = "admin:benchmark_generationrun_changelist"


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def dialogues(*difficulties: str):
    dataset = DatasetFactory()
    for index, difficulty in enumerate(difficulties):
        case_with_rubric(
            dataset=dataset,
            difficulty=difficulty,
            dialogue=[{"role": "A", "content": f"第{index}个来访者"}],
        )
    return dataset


def test_the_admin_form_queues_a_run_that_generates_in_process_and_shows_progress(
    admin_client, fake, django_capture_on_commit_callbacks
):
    dataset = dialogues("normal", "hard", "hard")
    model = ModelUnderTestFactory(name="gen-admin", base_url=fake.base_url)
    form = {"model": model.pk, "dataset": dataset.pk, "mode": "hard", "concurrency": 2,
            "rpm": "600", "tpm": "", "max_cost": ""}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        page = admin_client.post(reverse(ADD), form, follow=True)
    assert page.status_code == 200 and len(callbacks) == 1
    run = GenerationRun.objects.get()
    assert "queued" in page.content.decode() and f"Generation run {run.pk}" in page.content.decode()
    assert run.status == "finished" and run.mode == "hard"
    assert generation_run_queued_options(run=run) == {"concurrency": 2, "rpm": 600.0}
    answers = Response.objects.filter(model=model)
    assert answers.count() == 2 and {a.case.difficulty for a in answers} == {"hard"}
    assert all(a.source == "generated" and "模拟回复" in a.text for a in answers)
    assert fake.count() == 2
    listing = admin_client.get(reverse(LIST)).content.decode()
    assert "2/2 (100%), errors 0, calls 2" in listing
    detail = admin_client.get(reverse("admin:benchmark_generationrun_change", args=[run.pk]))
    assert detail.status_code == 200 and "2/2 (100%)" in detail.content.decode()
    assert 'name="max_cost"' in admin_client.get(reverse(ADD)).content.decode()
    # Idempotent: the task again for a finished run, or queuing the same thing again, sends
    # nothing new (the second queuing is a new run over the cases still unanswered: none).
    generation_run_task.delay(run_id=run.pk)
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse(ADD), form)
    assert fake.count() == 2 and Response.objects.filter(model=model).count() == 2


def test_the_form_refuses_a_model_without_endpoint_or_a_budget_without_a_price(admin_client):
    dataset = dialogues("normal")
    bare = ModelUnderTestFactory(name="no-url", base_url="")
    page = admin_client.post(reverse(ADD), {"model": bare.pk, "dataset": dataset.pk, "mode": "all"})
    assert page.status_code == 200 and "has no base URL" in page.content.decode()
    priceless = ModelUnderTestFactory(
        name="priceless", base_url="http://127.0.0.1:9/v1", endpoint_model="mystery-model"
    )
    page = admin_client.post(
        reverse(ADD),
        {"model": priceless.pk, "dataset": dataset.pk, "mode": "all", "max_cost": "1"},
    )
    assert page.status_code == 200 and "no price known" in page.content.decode()
    assert not GenerationRun.objects.exists()


def test_the_action_retries_failed_cases_and_skips_finished_runs(
    admin_client, fake, django_capture_on_commit_callbacks
):
    dataset = dialogues("normal", "normal")
    model = ModelUnderTestFactory(name="gen-retry", base_url=fake.base_url)
    fake.fail_prompt("第1个来访者", *["refusal"] * 3)
    with django_capture_on_commit_callbacks(execute=True):
        first = generation_queue(model=model, dataset=dataset, options={"concurrency": 1})
    first.refresh_from_db()
    assert first.status == "finished" and first.errors == 1
    assert "refused" in first.failures[0]["reason"]
    assert Response.objects.filter(model=model).count() == 1
    listing = admin_client.get(reverse(LIST)).content.decode()
    assert "2/2 (100%), errors 1, calls 4" in listing  # done counts the failed case

    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse(LIST), {"action": "queue_runs", "_selected_action": [first.pk]})
    assert Response.objects.filter(model=model).count() == 2
    second = GenerationRun.objects.exclude(pk=first.pk).get()
    assert second.status == "finished" and generation_run_queued_options(run=second) == {
        "concurrency": 1
    }
    sent = fake.count()
    # Both runs are now finished; the clean one is skipped, the old one's failure is retried
    # by a run that finds nothing left to ask.
    with django_capture_on_commit_callbacks(execute=True):
        page = admin_client.post(
            reverse(LIST), {"action": "queue_runs", "_selected_action": [second.pk]}, follow=True
        )
    assert "0 generation runs queued" in page.content.decode()
    assert fake.count() == sent


def test_a_run_that_cannot_start_fails_once_with_the_reason_and_no_retry(
    admin_client, fake, django_capture_on_commit_callbacks
):
    dataset = dialogues("normal")
    model = ModelUnderTestFactory(name="gen-lost-url", base_url=fake.base_url)
    # Queued with a base URL, which is gone by the time the worker runs it.
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = generation_queue(model=model, dataset=dataset)
    model.base_url = ""
    model.save()
    for callback in callbacks:
        callback()
    run.refresh_from_db()
    assert run.status == "failed" and "no base URL" in run.error
    assert fake.count() == 0
    assert "failed: " in admin_client.get(reverse(LIST)).content.decode()
    # Fixed and queued again: the same run continues, the error is gone.
    model.base_url = fake.base_url
    model.save()
    with django_capture_on_commit_callbacks(execute=True):
        again = generation_queue(model=model, dataset=dataset)
    again.refresh_from_db()
    assert again.pk == run.pk and again.status == "finished" and again.error == ""


def test_a_lost_endpoint_is_retried_a_bounded_number_of_times(
    fake, django_capture_on_commit_callbacks, monkeypatch
):
    dataset = dialogues("normal")
    model = ModelUnderTestFactory(name="gen-flaky", base_url=fake.base_url)
    with django_capture_on_commit_callbacks(execute=False):
        run = generation_queue(model=model, dataset=dataset)
    calls = []

    def broken(**kwargs):
        calls.append(kwargs["run_id"])
        raise ConnectionError("database went away")

    monkeypatch.setattr("benchmark.tasks.generation_run_execute", broken)
    # Retries applied in process one after another (as a worker would, later): one try and
    # max_retries more, then the task fails with the error.
    # (Celery re-applies each retry with the app's propagation setting, so it is off here.)
    app.conf.task_eager_propagates = False
    try:
        result = generation_run_task.apply(kwargs={"run_id": run.pk})
    finally:
        app.conf.task_eager_propagates = True
    assert result.failed() and isinstance(result.result, ConnectionError)
    assert calls == [run.pk] * (1 + generation_run_task.max_retries) and len(calls) == 4
    run.refresh_from_db()
    assert run.status == "pending" and not Response.objects.exists()
