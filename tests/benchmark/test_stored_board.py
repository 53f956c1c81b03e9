"""A leaderboard kept as data (benchmark.services.stored_board): read back equal after the
cache is emptied without computing, computed afresh on a new verdict, a finished run or a
changed scoring code, and a row that is not JSON refused without a write."""

import json
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command

from benchmark.models import JudgeRun, StoredBoard
from benchmark.selectors.leaderboard import LeaderboardError, leaderboard_compute
from benchmark.services import stored_board
from benchmark.services.stored_board import leaderboard_keep
from benchmark.stored_rows import StoredValueError
from tests.builders.datasets import (
    JudgeRunFactory,
    ModelUnderTestFactory,
)
from tests.builders.leaderboards import judge as judge_verdicts
from tests.builders.leaderboards import kept_board_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    return kept_board_dataset()


def _status(board, model):
    return next(m["judge_run"]["status"] for m in board["models"] if m["model"] == model)


def _refuse(**kwargs):
    raise AssertionError("computed again")


def test_a_kept_board_is_read_back_equal_without_computing(dataset, monkeypatch):
    computed = leaderboard_compute(dataset=dataset).as_dict()
    first = leaderboard_keep(dataset=dataset)
    assert json.dumps(first) == json.dumps(computed)  # every figure, in the same key order
    assert first["models"][0]["ci95"]  # the joint bootstrap's intervals are kept too
    assert StoredBoard.objects.filter(dataset=dataset).count() == 1
    cache.clear()
    monkeypatch.setattr(stored_board, "leaderboard_compute", _refuse)
    assert json.dumps(leaderboard_keep(dataset=dataset)) == json.dumps(computed)
    # Other options are another board: not this row.
    with pytest.raises(AssertionError, match="computed again"):
        leaderboard_keep(dataset=dataset, split="hard")


def test_a_new_verdict_a_finished_run_or_new_code_computes_afresh(dataset, monkeypatch):
    leaderboard_keep(dataset=dataset)
    judge = JudgeRun.objects.filter(dataset=dataset).first().judge
    late = JudgeRunFactory(judge=judge, dataset=dataset, model=ModelUnderTestFactory(name="late"),
                           status="running")  # fmt: skip
    for case in dataset.cases.all():
        judge_verdicts(late, case, ["met", "not_met", "met", "not_met"])
    running = leaderboard_keep(dataset=dataset)  # new verdicts: a new key, computed
    assert _status(running, "late") == "running"
    JudgeRun.objects.filter(pk=late.pk).update(status="finished")  # a changed run, no verdict
    assert _status(leaderboard_keep(dataset=dataset), "late") == "finished"
    # One row per dataset and options: the older ones were replaced, not piled up.
    assert StoredBoard.objects.filter(dataset=dataset).count() == 1
    cache.clear()
    monkeypatch.setattr(stored_board, "code_digest", lambda **kwargs: "another deploy")
    monkeypatch.setattr(stored_board, "leaderboard_compute", _refuse)
    with pytest.raises(AssertionError, match="computed again"):
        leaderboard_keep(dataset=dataset)


def test_a_stored_value_that_is_not_json_is_refused_without_a_write(dataset):
    leaderboard_keep(dataset=dataset)
    StoredBoard.objects.update(value="{not json")
    cache.clear()
    with pytest.raises(StoredValueError, match=r"stored leaderboard \w{12} is not JSON: .*line 1"):
        leaderboard_keep(dataset=dataset)
    assert list(StoredBoard.objects.values_list("value", flat=True)) == ["{not json"]


def test_a_board_that_cannot_be_built_stores_nothing(dataset):
    with pytest.raises(LeaderboardError, match="no judge run by 'nobody'"):
        leaderboard_keep(dataset=dataset, judge="nobody")
    assert not StoredBoard.objects.exists()


def test_the_command_keeps_the_board_the_page_shows_and_reads_it_back(
    dataset, admin_client, monkeypatch
):
    printed = StringIO()
    call_command("leaderboard", "--dataset", "kept-set", "--format", "json", stdout=printed)
    board = json.loads(printed.getvalue())
    assert StoredBoard.objects.filter(dataset=dataset).count() == 1
    page = admin_client.get("/leaderboard/", {"dataset": "kept-set"})
    assert page.status_code == 200
    assert json.dumps({**page.context["board"], "gate": board["gate"]}) == json.dumps(board)
    cache.clear()
    monkeypatch.setattr(stored_board, "leaderboard_compute", _refuse)
    again = StringIO()
    call_command("leaderboard", "--dataset", "kept-set", "--format", "json", stdout=again)
    assert again.getvalue() == printed.getvalue()
