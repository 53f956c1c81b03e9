"""The judge service against our fake endpoint: correct verdicts, faults, cache, resume."""

import pytest

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import JudgeRun, Verdict
from tests.builders.llm import (
    answered_dataset,
    expected_states,
    judge_once,
    stored_states,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def test_clean_pass_stores_the_judges_verdicts_and_accounting(fake):
    dataset, model = answered_dataset(cases=5)
    run = judge_once(fake, model, dataset)
    assert run.status == JudgeRun.Status.FINISHED
    assert stored_states(run) == expected_states(run)
    assert fake.count() == 5
    assert run.calls == 5 and run.parse_failures == 0 and run.retries == 0
    assert run.tokens_in > 0 and run.tokens_out > 0 and run.wall_seconds > 0


def test_rerun_of_a_finished_pass_sends_nothing(fake):
    dataset, model = answered_dataset(cases=3)
    judge_once(fake, model, dataset)
    sent = fake.count()
    again = judge_once(fake, model, dataset)
    assert fake.count() == sent
    assert Verdict.objects.filter(run=again).count() == 12


def test_forced_rejudge_makes_a_new_run_and_cache_serves_a_fresh_run(fake):
    dataset, model = answered_dataset(cases=3)
    first = judge_once(fake, model, dataset)
    forced = judge_once(fake, model, dataset, force=True)
    assert forced.pk != first.pk and fake.count() == 6
    # A new run without --force, e.g. after the finished ones were deleted, costs nothing.
    JudgeRun.objects.all().delete()
    fresh = judge_once(fake, model, dataset)
    assert fake.count() == 6
    assert stored_states(fresh) == expected_states(fresh)
    assert fresh.cached == 3


def test_item_granularity_sends_one_request_per_criterion(fake):
    dataset, model = answered_dataset(cases=2)
    run = judge_once(fake, model, dataset, granularity="item")
    assert fake.count() == 8
    assert stored_states(run) == expected_states(run)
