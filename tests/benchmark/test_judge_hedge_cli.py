"""`heartbench judge --hedge QUANTILE`: refused outside (0, 1]; a slow reply is hedged through
the command and the run's accounting counts every request sent."""

import pytest
from django.core.management import CommandError

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun
from tests.builders.llm import answered_dataset, expected_states, judge, stored_states

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("value", ["0", "1.5", "often"])
def test_a_hedge_outside_0_1_is_refused_before_anything_is_sent(value):
    _, model = answered_dataset(cases=1)
    with FakeLLM() as fake:
        with pytest.raises(CommandError, match="--hedge"):
            judge(model, "--base-url", fake.base_url, "--hedge", value)
        assert fake.count() == 0
    assert not JudgeRun.objects.exists()


def test_a_slow_reply_is_hedged_by_the_command_and_every_request_is_counted():
    _, model = answered_dataset(cases=25)
    with FakeLLM(latency=0.02, slow_seconds=60) as fake:
        last = model.responses.order_by("-case__position").first()
        fake.fail_prompt(last.text, "slow")
        judge(model, "--base-url", fake.base_url, "--hedge", "0.9", "--concurrency", "4")
        assert fake.stats()["in_flight"] == 1  # finished without the slow reply
        run = JudgeRun.objects.get()
        assert run.calls == fake.count() > 25
    assert run.status == JudgeRun.Status.FINISHED and run.errors == 0
    assert stored_states(run) == expected_states(run)
