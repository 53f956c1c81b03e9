"""A run's verdict counts: counted each time while it may still change, kept once it ended."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from benchmark.models import JudgeRun
from benchmark.selectors.runs import verdict_counts, verdict_counts_of
from benchmark.services.judging import verdicts_store
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def _judge(run, response, states):
    items = list(response.case.rubric.values_list("pk", flat=True))[: len(states)]
    verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=items, states=states,
                   reasons=[""] * len(items), raw="")  # fmt: skip


def test_an_ended_runs_counts_are_kept_and_a_going_runs_counted_again():
    cache.clear()
    study = open_study(cases=2, experts=[], judge=True)
    run = study.judge_runs.get()
    first, second = run.model.responses.select_related("case")[:2]
    _judge(run, first, ["met", "error", "not_met"])
    going = JudgeRun.objects.create(judge=run.judge, model=run.model, dataset=run.dataset,
                                    status=JudgeRun.Status.RUNNING)  # fmt: skip
    empty = JudgeRun.objects.create(judge=run.judge, model=run.model, dataset=run.dataset,
                                    status=JudgeRun.Status.FAILED)  # fmt: skip
    _judge(going, first, ["met"])
    runs = [run, going, empty]
    assert verdict_counts_of(runs=runs) == {run.pk: (3, 1), going.pk: (1, 0)}

    # Later verdicts: the going run's are seen at once, without the finished run's count.
    _judge(going, second, ["error", "met"])
    with CaptureQueriesContext(connection) as asked:
        counts = verdict_counts_of(runs=runs)
    assert counts[run.pk] == (3, 1) and counts[going.pk] == (3, 1)
    assert counts.get(empty.pk, (0, 0)) == (0, 0)
    assert len(asked) == 1 and f"({going.pk})" in asked[0]["sql"].replace(" ", "")

    # Once nothing is going, nothing is counted.
    with CaptureQueriesContext(connection) as asked:
        verdict_counts_of(runs=[run, empty])
    assert len(asked) == 0

    # A finished run that is run again and ends with new counts is counted afresh.
    _judge(run, second, ["met", "met"])
    run.done = 5
    run.save(update_fields=["done"])
    assert verdict_counts_of(runs=[run]) == verdict_counts(run_ids=[run.pk]) == {run.pk: (5, 1)}
