"""One rule for the run a leaderboard and a study report read per judge and model."""

import pytest

from benchmark.models import JudgeRun
from benchmark.selectors.runs import runs_latest
from tests.builders.datasets import JudgeRunFactory
from tests.builders.studies import open_study
from validation.report.selectors import _judge_runs

pytestmark = pytest.mark.django_db


def test_the_newest_finished_run_wins_over_a_newer_one_still_going():
    finished = JudgeRunFactory()
    going = JudgeRunFactory(
        judge=finished.judge, model=finished.model, dataset=finished.dataset,
        status=JudgeRun.Status.RUNNING,
    )  # fmt: skip
    alone = JudgeRunFactory(
        judge=finished.judge, dataset=finished.dataset, status=JudgeRun.Status.STOPPED
    )
    picked = runs_latest(JudgeRun.objects.all())
    assert sorted(r.pk for r in picked) == sorted([finished.pk, alone.pk])
    assert going.pk not in {r.pk for r in picked}


def test_a_finished_run_of_every_case_wins_over_a_newer_finished_subset():
    whole = JudgeRunFactory()
    same = {"judge": whole.judge, "model": whole.model, "dataset": whole.dataset}
    JudgeRunFactory(**same, limit=5)
    JudgeRunFactory(**same, sample_ids="a1,b2")
    assert runs_latest(JudgeRun.objects.all()) == [whole]


def test_the_report_reads_the_run_the_leaderboard_reads():
    study = open_study(cases=1, experts=[], judge=True)
    first = study.judge_runs.get()
    retry = JudgeRunFactory(
        judge=first.judge, model=first.model, dataset=first.dataset,
        status=JudgeRun.Status.RUNNING,
    )  # fmt: skip
    study.judge_runs.add(retry)
    # Before, the report took the highest id (the retry still going); now the finished run.
    assert _judge_runs(study) == {first.judge.name: [first]}
