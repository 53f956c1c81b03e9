"""The dashboard's action on a failing judge run: a new run that asks the judge again only where
the run ended in errors (against the local fake endpoint, tasks eager)."""

import pytest

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import AuditEvent, JudgeRun, Verdict
from benchmark.services.judge_retry import judge_run_retry_errors
from benchmark.services.judging import LLMJobConfigError, verdicts_store
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.llm import (
    answered_dataset,
    expected_states,
    first_response,
    judge_once,
    stored_states,
)

pytestmark = pytest.mark.django_db
OVERVIEW = "/admin/dashboard/"


def test_judging_the_errors_again_asks_only_for_them_and_replaces_the_run(
    admin_client, admin_user, django_capture_on_commit_callbacks
):
    with FakeLLM() as fake:
        dataset, model = answered_dataset(cases=6)  # 24 verdicts: enough for the alert
        broken = first_response(model)
        fake.fail_prompt(broken.text, "malformed", "malformed", "malformed")
        run = judge_once(fake, model, dataset)
        assert run.errors == 4 and run.status == JudgeRun.Status.FINISHED
        asked = fake.count()
        retry_url = f"/admin/dashboard/runs/{run.pk}/retry/"
        body = admin_client.get(OVERVIEW).content.decode()
        assert 'data-alert="failing-run"' in body and retry_url in body

        with django_capture_on_commit_callbacks(execute=True) as queued:
            page = admin_client.post(retry_url, {"next": OVERVIEW}, follow=True)
        assert len(queued) == 1
        retry = JudgeRun.objects.exclude(pk=run.pk).get()
        assert retry.status == JudgeRun.Status.FINISHED and retry.retry_of == run
        assert stored_states(retry) == expected_states(retry)
        # The failed prompt alone reached the endpoint again; the others came from the cache.
        assert fake.count() == asked + 1
        assert retry.cached == 5
        # The failed run is kept as it was, and its alert is gone: the new run replaced it.
        assert Verdict.objects.filter(run=run, state="error").count() == 4
        body = page.content.decode()
        assert f"Run {retry.pk} is queued" in body
        assert 'data-alert="failing-run"' not in body
        event = AuditEvent.objects.get(action="judge_run.retry_errors")
        assert event.actor == admin_user and event.data == {"retry_of": run.pk, "errors": 4}

        # Asking again for the replaced run is refused, and nothing is queued.
        page = admin_client.post(retry_url, {"next": OVERVIEW}, follow=True)
        assert f"Run {retry.pk} already replaced run {run.pk}." in page.content.decode()
        assert JudgeRun.objects.count() == 2 and fake.count() == asked + 1


def _run_with(states: list[str], **fields) -> JudgeRun:
    dataset, model = answered_dataset(cases=1)
    run = JudgeRunFactory(dataset=dataset, model=model, **fields)
    response = model.responses.get()
    items = list(response.case.rubric.values_list("pk", flat=True))
    verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=items,
                   states=(states * len(items))[: len(items)], reasons=[""] * len(items),
                   raw="")  # fmt: skip
    return run


ENDPOINT = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("source", "status", "states", "base_url", "reason"),
    [
        ("import", "finished", ["error"], ENDPOINT, "holds imported verdicts"),
        ("engine", "running", ["error"], ENDPOINT, "is still going"),
        ("engine", "finished", ["met", "error"], ENDPOINT, None),
        ("engine", "finished", ["met"], ENDPOINT, "has no errors"),
        ("engine", "finished", ["error"], "", "has no endpoint URL"),
    ],
)
def test_only_a_finished_engine_run_with_errors_is_judged_again(
    source, status, states, base_url, reason, admin_user, django_capture_on_commit_callbacks
):
    judge = JudgeFactory(base_url=base_url)
    run = _run_with(states, source=source, status=status, judge=judge)
    if reason is None:
        with django_capture_on_commit_callbacks() as queued:  # queued, not run here
            retry = judge_run_retry_errors(run=run, actor=admin_user)
        assert len(queued) == 1 and retry.status == JudgeRun.Status.PENDING
        assert JudgeRun.objects.count() == 2
        return
    with pytest.raises(LLMJobConfigError, match=reason):
        judge_run_retry_errors(run=run, actor=admin_user)
    assert JudgeRun.objects.count() == 1
    assert not AuditEvent.objects.filter(action="judge_run.retry_errors").exists()


def test_a_staff_member_without_the_run_permission_cannot_queue_one(client, django_user_model):
    run = _run_with(["error"], source="engine", judge=JudgeFactory(base_url=ENDPOINT))
    staff = django_user_model.objects.create_user("viewer", password="!", is_staff=True)
    client.force_login(staff)
    assert client.post(f"/admin/dashboard/runs/{run.pk}/retry/").status_code == 403
    assert JudgeRun.objects.count() == 1
