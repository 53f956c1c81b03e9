"""`judge --repeats N`: independent runs of one judge over the same responses, linked to run 0,
each asked anew (its own cache key, seed + i), in process and through the Celery task."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_server import FakeLLM, fake_flip
from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, template_load
from benchmark.models import JudgeRun
from benchmark.selectors.runs import judge_run_successors, runs_latest
from benchmark.services.judging import (
    EngineOptions,
    judge_repeats_start,
    judge_resolve,
    judge_run_execute,
    judge_run_queue,
)
from benchmark.services.llm_jobs import LLMJobConfigError, RunOptions
from tests.builders.llm import answered_dataset, expected_states, stored_states

pytestmark = pytest.mark.django_db

QUICK = ["--no-progress", "--max-retry-wait", "5", "--timeout", "5"]


def _judge(fake):
    return judge_resolve(
        name="noisy",
        endpoint_model="noisy-model",
        base_url=fake.base_url,
        template=template_load(DEFAULT_JUDGE_TEMPLATE),
    )


def _repeat(fake, model, dataset, *, repeats=3, force=False, **options):
    started = judge_repeats_start(
        judge=_judge(fake),
        model=model,
        dataset=dataset,
        repeats=repeats,
        options=RunOptions(**options),
        force=force,
    )
    for run, todo in started:
        if todo:
            judge_run_execute(
                run_id=run.pk,
                options=EngineOptions(
                    concurrency=2, retry=RetryPolicy(max_attempts=2, backoff_base=0.01)
                ),
            )
    return [JudgeRun.objects.get(pk=run.pk) for run, _ in started]


def test_the_noisy_fake_flips_by_temperature_and_seed_deterministically():
    assert not fake_flip("c", noise=1.0, temperature=None, seed=1, ask=0)  # greedy
    assert not fake_flip("c", noise=0.0, temperature=1.0, seed=1, ask=0)  # switched off
    assert fake_flip("c", noise=1.0, temperature=1.0, seed=None, ask=3)  # chance 1
    draws = [fake_flip(f"c{i}", noise=0.5, temperature=0.6, seed=4, ask=0) for i in range(400)]
    assert 0.2 < sum(draws) / 400 < 0.4  # chance 0.3
    # The same seed answers the same whatever the ask; unseeded asks differ.
    assert [fake_flip(f"c{i}", noise=0.5, temperature=1, seed=4, ask=9) for i in range(50)] == [
        fake_flip(f"c{i}", noise=0.5, temperature=1, seed=4, ask=0) for i in range(50)
    ]
    assert [fake_flip(f"c{i}", noise=0.5, temperature=1, seed=None, ask=1) for i in range(50)] != [
        fake_flip(f"c{i}", noise=0.5, temperature=1, seed=None, ask=0) for i in range(50)
    ]


def test_repeats_are_linked_seeded_and_each_asks_the_judge():
    dataset, model = answered_dataset(cases=5)
    with FakeLLM(noise=0.5) as fake:
        runs = _repeat(fake, model, dataset, temperature=0.8, seed=7)
        assert fake.count() == 15  # nothing served from another repeat's cache
        sent = sorted((r.parameters["seed"], r.parameters["temperature"]) for r in fake.requests)
    assert sent == [(7, 0.8)] * 5 + [(8, 0.8)] * 5 + [(9, 0.8)] * 5
    root = runs[0]
    assert [(r.repeat_index, r.repeat_of_id) for r in runs] == [
        (0, None),
        (1, root.pk),
        (2, root.pk),
    ]
    assert [r.seed for r in runs] == [7, 8, 9] and {r.temperature for r in runs} == {0.8}
    assert {r.status for r in runs} == {"finished"} and {r.cached for r in runs} == {0}
    states = [stored_states(r) for r in runs]
    assert states[0] != states[1] or states[0] != states[2]  # 20 criteria, flip chance 0.4
    # A seed answers the same again: a forced set of repeats with the same seeds agrees.
    with FakeLLM(noise=0.5) as fake:
        again = _repeat(fake, model, dataset, temperature=0.8, seed=7, force=True)
    assert [stored_states(r) for r in again] == states


def test_unseeded_repeats_differ_and_keep_their_own_cached_replies():
    dataset, model = answered_dataset(cases=5)
    with FakeLLM(noise=0.5) as fake:
        runs = _repeat(fake, model, dataset, temperature=1.0)
        states = [stored_states(r) for r in runs]
        assert fake.count() == 15
        assert len({tuple(sorted(s.items())) for s in states}) > 1
        # Running them again finds them finished; with the runs gone, each repeat is served
        # its own reply from the cache (keyed by repeat index), none from another's.
        assert [r.pk for r in _repeat(fake, model, dataset, temperature=1.0)] == [
            r.pk for r in runs
        ]
        JudgeRun.objects.all().delete()
        cached = _repeat(fake, model, dataset, temperature=1.0)
        assert fake.count() == 15
    assert [stored_states(r) for r in cached] == states
    assert [r.cached for r in cached] == [5, 5, 5]


def test_without_noise_every_repeat_is_the_fake_judges_verdict():
    dataset, model = answered_dataset(cases=2)
    with FakeLLM() as fake:
        runs = _repeat(fake, model, dataset, repeats=2, temperature=1.0)
    for run in runs:
        assert stored_states(run) == expected_states(run)


def test_the_leaderboard_and_reports_read_run_0_never_a_repeat():
    dataset, model = answered_dataset(cases=2)
    with FakeLLM(noise=0.5) as fake:
        runs = _repeat(fake, model, dataset, temperature=1.0)
    assert runs_latest(JudgeRun.objects.all()) == [runs[0]]
    assert judge_run_successors(run_ids=[runs[0].pk]) == {}


def test_repeats_run_through_the_celery_task(django_capture_on_commit_callbacks):
    dataset, model = answered_dataset(cases=3)
    with FakeLLM(noise=0.5) as fake:
        started = judge_repeats_start(
            judge=_judge(fake),
            model=model,
            dataset=dataset,
            repeats=3,
            options=RunOptions(temperature=1.0, seed=3),
        )
        with django_capture_on_commit_callbacks(execute=True):
            for run, _ in started:
                judge_run_queue(run_id=run.pk)
        assert fake.count() == 9
    with FakeLLM(noise=0.5) as fake:
        in_process = _repeat(fake, model, dataset, temperature=1.0, seed=3, force=True)
    queued = [JudgeRun.objects.get(pk=run.pk) for run, _ in started]
    assert {r.status for r in queued} == {"finished"}
    assert [stored_states(r) for r in queued] == [stored_states(r) for r in in_process]


def test_the_command_judges_n_repeats_and_refuses_bad_counts():
    _dataset, model = answered_dataset(cases=2)
    with FakeLLM(noise=0.5) as fake:
        common = ["--model", model.name, "--judge-model", "j", "--base-url", fake.base_url]
        out = io.StringIO()
        call_command("judge", *common, *QUICK, "--repeats", "3", "--temperature", "1", stdout=out)
        assert fake.count() == 6
        text = out.getvalue()
        assert "repeat 1: judge run" in text and "repeat 2: judge run" in text
        with pytest.raises(CommandError, match="--repeats"):
            call_command("judge", *common, "--repeats", "0", stdout=io.StringIO())
        with pytest.raises(CommandError, match="--retry-errors and --repeats exclude each other"):
            call_command("judge", *common, "--repeats", "2", "--retry-errors", stdout=io.StringIO())
        again = io.StringIO()
        call_command("judge", *common, *QUICK, "--repeats", "3", "--temperature", "1", stdout=again)
        assert again.getvalue().count("already finished") == 3 and fake.count() == 6
    assert JudgeRun.objects.count() == 3


def test_the_service_refuses_fewer_than_one_repeat():
    dataset, model = answered_dataset(cases=1)
    with FakeLLM() as fake, pytest.raises(LLMJobConfigError, match="at least 1"):
        judge_repeats_start(judge=_judge(fake), model=model, dataset=dataset, repeats=0)
