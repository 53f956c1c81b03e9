"""Judge runs started from the admin run as Celery tasks (eager here) and show progress."""

import pytest
from django.urls import reverse

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun
from benchmark.tasks import judge_run_task
from tests.builders.datasets import JudgeFactory
from tests.builders.llm import answered_dataset, expected_states, stored_states

pytestmark = pytest.mark.django_db


def test_admin_action_queues_and_the_task_judges(admin_client, django_capture_on_commit_callbacks):
    with FakeLLM() as fake:
        answered_dataset(cases=2)
        answered_dataset(cases=1)
        judge = JudgeFactory(
            base_url=fake.base_url,
            prompt_template_version="heartbench-judge-zh-v1",
            parameters={"limits": {"concurrency": 2, "rpm": 600}},
        )
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            response = admin_client.post(
                reverse("admin:benchmark_judge_changelist"),
                {"action": "queue_all", "_selected_action": [judge.pk]},
                follow=True,
            )
        assert response.status_code == 200 and len(callbacks) == 2
        runs = list(JudgeRun.objects.all())
        assert len(runs) == 2 and {r.status for r in runs} == {"finished"}
        for run in runs:
            assert stored_states(run) == expected_states(run)
        assert fake.count() == 3
        page = admin_client.get(reverse("admin:benchmark_judgerun_changelist"))
        assert "8/8 (100%), errors 0, calls 2" in page.content.decode()
        # Idempotent: running the task again for a finished run sends nothing.
        judge_run_task.delay(run_id=runs[0].pk)
        assert fake.count() == 3
