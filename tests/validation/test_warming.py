"""Figures computed ahead of their first reader (benchmark.services.warming): with workers, a
study's close, a senior's decision after it and a judge run's end queue the task that stores
what the report page and the leaderboard read; in process nothing is queued, and a broker
that cannot be reached is logged without failing the change."""

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.utils import timezone
from kombu.exceptions import OperationalError

from benchmark.models import GenerationRun, JudgeRun, StoredBoard
from benchmark.services import stored_board, warming
from benchmark.services.announce import run_ended
from benchmark.services.stored_board import leaderboard_warm
from tests.builders.adjudication import NEXT, api_for, decide_all, split_study
from tests.builders.leaderboards import BOARD_TASK, kept_board_dataset
from tests.builders.studies import dataset_with_responses, rated_study
from validation import services, tasks
from validation.models import StoredFigures, Study, StudyUnit
from validation.report import compute as report_module
from validation.selectors import badge as badge_selectors
from validation.services import stored
from validation.services.stored import (
    GOLD_PAUSE,
    figures_after_deploy_warm,
    judge_badge_keep,
    study_figures_warm,
    study_report_keep,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    return kept_board_dataset()


def _refuse(**kwargs):
    raise AssertionError("computed again")


STUDY_TASK = "validation.tasks.study_figures_warm_task"


def test_a_close_queues_the_studys_figures_once_it_commits(
    queued, django_capture_on_commit_callbacks
):
    study = rated_study(rate=False)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.study_close(study=study)
    assert queued == []  # nothing before the commit: a worker would find the study open
    for callback in callbacks:
        callback()
    assert queued == [(STUDY_TASK, {"study_id": study.pk}, 0)]
    # The close computed nothing itself: the worker does.
    assert not StoredFigures.objects.filter(study=study).exists()


def test_in_process_a_close_queues_nothing(monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(warming, "_publish", lambda task, kwargs, countdown: sent.append(task))
    with django_capture_on_commit_callbacks(execute=True):
        services.study_close(study=rated_study(rate=False))
    assert sent == []


def test_a_seniors_decision_after_the_close_queues_the_figures_again(
    queued, django_capture_on_commit_callbacks
):
    study, _, senior = split_study(splits=["*"], name="late-gold")
    client = api_for(senior)
    body = client.post(NEXT + study.name).json()
    with django_capture_on_commit_callbacks(execute=True):
        services.study_close(study=study)
    queued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert decide_all(client, body).status_code == 201
    # The decision is gold in its own transaction; the figures follow after a pause, so that
    # a senior's run of decisions is computed once.
    assert study.units.get().state == StudyUnit.State.ADJUDICATED
    assert queued == [(STUDY_TASK, {"study_id": study.pk}, GOLD_PAUSE)]


def test_the_warmed_report_and_badges_are_what_their_first_reader_reads(monkeypatch):
    study = rated_study()
    assert study_figures_warm(study_id=study.pk) == ["report", "badge:judge-a", "badge:judge-b"]
    expected = {"report", "badge:judge-a", "badge:judge-b"}
    assert set(StoredFigures.objects.filter(study=study).values_list("kind", flat=True)) == expected
    cache.clear()
    monkeypatch.setattr(report_module, "report_compute", _refuse)
    monkeypatch.setattr(badge_selectors, "judge_badge_for_study", _refuse)
    assert study_report_keep(study=study)["study"]["name"] == study.name
    assert judge_badge_keep(study=study, judge="judge-a").conditions
    # Again: nothing more to compute, nothing more stored.
    assert study_figures_warm(study_id=study.pk) == ["report", "badge:judge-a", "badge:judge-b"]
    assert StoredFigures.objects.filter(study=study).count() == 3


def test_an_open_or_deleted_study_is_not_warmed():
    study = rated_study(rate=False)
    assert study_figures_warm(study_id=study.pk) == []
    assert study_figures_warm(study_id=study.pk + 1000) == []
    assert not StoredFigures.objects.exists()


def test_a_judge_run_that_ended_with_verdicts_queues_its_datasets_board(
    queued,
    dataset,
    django_capture_on_commit_callbacks,
):
    run = JudgeRun.objects.filter(dataset=dataset).first()
    for status in (JudgeRun.Status.FINISHED, JudgeRun.Status.STOPPED, JudgeRun.Status.FAILED):
        run.status = status
        with django_capture_on_commit_callbacks(execute=True):
            run_ended(run=run)
    generation = GenerationRun.objects.create(
        model=run.model, dataset=dataset, status=GenerationRun.Status.FINISHED
    )
    with django_capture_on_commit_callbacks(execute=True):
        run_ended(run=generation)
    # Finished and stopped runs change the board; a run that could not start has no verdicts,
    # and answers without verdicts are on no board.
    assert queued == [(BOARD_TASK, {"dataset_id": dataset.pk}, 0)] * 2


def test_the_warmed_board_is_what_the_leaderboard_page_reads(
    dataset,
    monkeypatch,
    admin_client,
):
    assert leaderboard_warm(dataset_id=dataset.pk + 1000) is False  # a dataset deleted since
    assert not StoredBoard.objects.exists()
    assert leaderboard_warm(dataset_id=dataset.pk) is True
    assert StoredBoard.objects.filter(dataset=dataset).count() == 1
    cache.clear()
    monkeypatch.setattr(stored_board, "leaderboard_compute", _refuse)
    page = admin_client.get("/leaderboard/", {"dataset": dataset.name})
    assert page.status_code == 200 and "good" in page.content.decode()


def test_a_broker_that_cannot_be_reached_is_logged_and_the_close_stands(
    settings, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False

    class Unreachable:
        name = STUDY_TASK

        def apply_async(self, **options):
            raise OperationalError("connection refused")

    monkeypatch.setattr("validation.services.stored.STUDY_FIGURES_WARM", Unreachable())
    study = rated_study(rate=False)
    with caplog.at_level(logging.WARNING, logger=warming.__name__):
        with django_capture_on_commit_callbacks(execute=True):
            services.study_close(study=study)
    study.refresh_from_db()
    assert study.closed_at is not None
    assert f"broker unreachable (connection refused): {STUDY_TASK}" in caplog.text


def closed_studies(count: int) -> list[Study]:
    """``count`` studies closed a day apart, the newest first."""
    now, (data, models) = timezone.now(), dataset_with_responses(cases=1)
    create = services.study_create
    studies = [
        create(name=f"closed-{i}", dataset=data, models=models, judge_runs=[], fraction=1.0, seed=1)
        for i in range(count)
    ]
    for age, study in enumerate(studies):
        Study.objects.filter(pk=study.pk).update(closed_at=now - timedelta(days=age))
    return studies


def test_new_code_has_the_newest_closed_studies_and_kept_boards_warmed_once(
    queued,
    dataset,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    cache.clear()
    still_open, *studies = closed_studies(4)
    Study.objects.filter(pk=still_open.pk).update(closed_at=None)
    leaderboard_warm(dataset_id=dataset.pk)  # a board someone read
    with django_capture_on_commit_callbacks(execute=True):
        assert figures_after_deploy_warm(studies=2) == (2, 1)
    assert queued == [
        (STUDY_TASK, {"study_id": studies[0].pk}, 0),
        (STUDY_TASK, {"study_id": studies[1].pk}, 0),
        (BOARD_TASK, {"dataset_id": dataset.pk}, 0),
    ]
    # The next worker to start on the same code queues nothing; one on other code does.
    queued.clear()
    assert figures_after_deploy_warm(studies=2) is None and queued == []
    monkeypatch.setattr(stored, "code_digest", lambda packages: "0ther-c0de")
    assert figures_after_deploy_warm(studies=2) == (2, 1)


def worker(*queues: str) -> SimpleNamespace:
    """What Celery's ``worker_ready`` signal sends: the consumer, which knows its queues."""
    consume_from = {queue: None for queue in queues}
    return SimpleNamespace(app=SimpleNamespace(amqp=SimpleNamespace(queues=SimpleNamespace(
        consume_from=consume_from))))  # fmt: skip


@pytest.mark.django_db(transaction=True)  # the signal's handler closes its connection
def test_a_worker_ready_for_reports_warms_after_a_deploy_and_a_judge_worker_does_not(queued):
    cache.clear()
    [study] = closed_studies(1)
    tasks.figures_after_deploy(sender=worker("judge", "generate"))
    assert queued == []
    tasks.figures_after_deploy(sender=worker("reports"))
    assert queued == [(STUDY_TASK, {"study_id": study.pk}, 0)]
