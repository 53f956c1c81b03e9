"""Where events come from: an expert's last rating, gold, a study opened and closed, a judge
or generation run that ended. Ids, names and links only; a failing receiver costs an expert's
submit nothing."""

import time

import pytest
from rest_framework.test import APIClient

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import GenerationRun
from benchmark.services.generation import generation_run_fail
from benchmark.services.judging import judge_run_queue, judge_run_start
from tests.builders.accounts import ExpertFactory
from tests.builders.datasets import JudgeFactory
from tests.builders.llm import answered_dataset
from tests.builders.studies import open_study
from tests.builders.webhook_receiver import free_port
from tests.builders.webhooks import endpoint_for, sender_paused, sent
from validation.services import study_close
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "sk-never-in-a-payload-0123456789"


def submit_all(expert, study: str) -> float:
    """Claim the expert's next unit and submit it with every criterion met; the submit's time."""
    client = APIClient()
    client.force_authenticate(expert.user)
    unit = client.post(f"/api/v1/assignments/next/?study={study}").json()
    labels = [{"criterion": c["id"], "hit": True} for c in unit["unit"]["criteria"]]
    started = time.monotonic()
    response = client.post(
        f"/api/v1/assignments/{unit['id']}/submit/", {"labels": labels}, format="json"
    )
    assert response.status_code == 201, response.content
    return time.monotonic() - started


def test_the_last_rating_announces_the_unit_then_its_gold_and_failing_receivers_cost_nothing(
    receivers, settings
):
    settings.HEARTBENCH_WEBHOOK_TIMEOUT = 2
    settings.HEARTBENCH_WEBHOOK_ATTEMPTS = 2
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts, name="hooks")
    good = receivers()
    endpoint_for(receivers(delay=5), name="hangs")
    endpoint_for(f"http://127.0.0.1:{free_port()}/hook", name="down")
    endpoint_for(good, name="good", events=["unit.completed", "gold.ready"])
    assert submit_all(experts[0], "hooks") < 1.5 and submit_all(experts[1], "hooks") < 1.5
    assert not Delivery.objects.exists()  # the unit is not complete yet
    # The last rating: the submit answers before any receiver is tried (one hangs past the
    # timeout, one refuses), since deliveries go out on the sender thread after the commit.
    with sender_paused():
        assert submit_all(experts[2], "hooks") < 1.5
        assert Delivery.objects.count() == 6 and not Delivery.objects.filter(attempts__gt=0)
    sent()
    assert [r["payload"]["event"] for r in good.requests] == ["unit.completed", "gold.ready"]
    completed, gold = (r["payload"] for r in good.requests)
    unit = study.units.get()
    assert completed["data"] == {"study": "hooks", "study_id": study.pk, "unit": unit.unit_id,
                                 "study_unit": unit.pk, "case": unit.case.question_id,
                                 "state": "pending"}  # fmt: skip
    assert gold["data"]["state"] == "gold"
    assert gold["links"]["dashboard"] == (
        "https://heartbench.example.org/admin/dashboard/studies/hooks/"
    )
    failed = Delivery.objects.exclude(endpoint__name="good")
    assert failed.count() == 4 and not failed.filter(delivered_at__isnull=False).exists()
    assert {d.last_error.split(":")[0] for d in failed} == {"ReadTimeout", "ConnectError"}
    assert all(d.attempts == 2 for d in failed)
    for expert in experts:  # no expert identity, not even a pseudonym
        for request in good.requests:
            body = str(request["payload"])
            assert expert.user.username not in body and expert.pseudonym not in body
            assert (expert.user.email or "@") not in body


def test_a_study_announces_its_opening_and_its_close_with_the_report_link(receivers):
    receiver = receivers()
    endpoint_for(receiver, events=["study.opened", "study.closed"])
    with sender_paused():
        study = open_study(cases=2, experts=[ExpertFactory()], name="pilot")
        study_close(study=study, unrated="drop")
    sent()
    opened, closed = (r["payload"] for r in receiver.requests)
    assert opened["event"] == "study.opened"
    assert opened["data"] == {"study": "pilot", "study_id": study.pk, "units": 2,
                              "due_date": None}  # fmt: skip
    assert closed["event"] == "study.closed"
    assert closed["data"]["never_rated"] == 2 and closed["data"]["dropped"] == 2
    assert closed["links"]["report"] == (
        "https://heartbench.example.org/admin/studies/pilot/report/"
    )


def test_a_judge_run_that_finishes_is_announced_without_any_key(receivers, monkeypatch):
    monkeypatch.setenv("HEARTBENCH_API_KEY", KEY)
    receiver = receivers()
    endpoint_for(receiver, events=["judge_run.finished", "judge_run.failed"])
    with FakeLLM() as fake:
        dataset, model = answered_dataset(cases=2)
        judge = JudgeFactory(
            base_url=fake.base_url, prompt_template_version="heartbench-judge-zh-v1"
        )
        with sender_paused():
            run, _ = judge_run_start(judge=judge, model=model, dataset=dataset)
            judge_run_queue(run_id=run.pk)
        sent()
    [request] = receiver.requests
    payload = request["payload"]
    assert payload["event"] == "judge_run.finished"
    assert payload["data"]["run"] == run.pk and payload["data"]["judge"] == judge.name
    assert payload["data"]["done"] == payload["data"]["total"] == 8
    assert payload["links"]["admin"].endswith(f"/admin/benchmark/judgerun/{run.pk}/change/")
    assert KEY not in str(request)


def test_a_generation_run_that_cannot_start_is_announced_as_failed(receivers):
    receiver = receivers()
    endpoint_for(receiver, events=["generation_run.failed"])
    dataset, model = answered_dataset(cases=1)
    run = GenerationRun.objects.create(model=model, dataset=dataset)
    generation_run_fail(run_id=run.pk, reason=f"no price known (key {KEY})")
    sent()
    [request] = receiver.requests
    assert request["payload"]["event"] == "generation_run.failed"
    assert request["payload"]["data"]["status"] == "failed"
    assert KEY not in str(request)
