"""`heartbench leaderboard --pairwise SET`: the judge's choices over a pairwise set ranked by
Bradley–Terry beside the win rates, against the fake judge over real HTTP; the figures worked
out by hand from the fake's rules, the judge chosen by usable pairs or by name, the newest run
read, and every option of the rubric board refused with a reason."""

import io
import json
import math

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.llm.fake_server import FakeLLM
from tests.builders.pairwise import TRIO, answered_by, draw, judge_pairwise
from tests.builders.schemas import schema_validator

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair_set():
    answered_by(names=list(TRIO), cases=4, texts=lambda i, n: f"{TRIO[n]}（{i}）", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    return "set"


def board(*args: str) -> str:
    out = io.StringIO()
    call_command("leaderboard", "--pairwise", *args, stdout=out)
    return out.getvalue()


def test_the_board_ranks_by_bradley_terry_worked_by_hand(pair_set):
    with FakeLLM() as fake:
        judge_pairwise(fake, pair_set)
    found = json.loads(board(pair_set, "--format", "json"))
    schema_validator("pairwise-board").validate(found)
    assert found["pairwise_set"] == "set" and found["dataset"]["name"] == "pw"
    assert (found["judge"], found["judge_chosen_by"], found["judges"]) == (
        "fake-judge",
        "usable pairs",
        ["fake-judge"],
    )
    assert (found["pairs"], found["usable_pairs"], found["position_inconsistent"]) == (12, 12, 0)
    assert found["models"] == ["ann", "cat", "bob"]  # ann and cat equal: by name
    rates = found["win_rate"]
    assert (rates["ann"]["bob"], rates["cat"]["bob"], rates["ann"]["cat"]) == (1.0, 1.0, 0.5)
    # bob never wins: the MLE is infinite, so half a win is added each way to every pair. Then
    # bob has 1 win in 10 games against two equal models s: t/(t+s) = 0.1, s = 9t, and the
    # log-strengths sum to 0: s²t = 1, t = 81^(-1/3).
    model = found["bradley_terry"]
    assert model["prior"]["used"] is True
    t = 81 ** (-1 / 3)
    assert model["strength"]["bob"] == pytest.approx(t, rel=1e-6)
    assert model["strength"]["ann"] == pytest.approx(9 * t, rel=1e-6)
    assert model["p_win"]["ann"]["bob"] == pytest.approx(0.9, rel=1e-6)
    assert model["p_win"]["ann"]["cat"] == pytest.approx(0.5, rel=1e-6)
    # Every case chose alike: resampling cases cannot vary a figure, so no interval is shown.
    assert all(ci["low"] is None and "do not vary" in ci["reason"] for ci in model["ci95"].values())
    assert math.isclose(sum(math.log(v) for v in model["strength"].values()), 0, abs_tol=1e-9)
    table = board(pair_set)
    assert "Pairwise board: set (pw v1), judge fake-judge" in table
    assert "12 of 12 pairs usable; 0 position-inconsistent (counted as ties)" in table
    assert [line.split()[1] for line in table.splitlines()[3:6]] == ["ann", "cat", "bob"]
    assert "interval withheld: every resample of cases gives the same figure" in table


def test_the_judge_with_most_usable_pairs_and_its_newest_run(pair_set):
    with FakeLLM() as fake:
        judge_pairwise(fake, pair_set, "--limit", "2", judge="a-judge")
        first = json.loads(board(pair_set, "--format", "json"))
        judge_pairwise(fake, pair_set, judge="b-judge")
        assert json.loads(board(pair_set, "--format", "json"))["judge"] == "b-judge"
        assert first["judge"] == "a-judge" and first["usable_pairs"] == 6
        # The same judge's newest run (over every case now) replaces the board it had.
        judge_pairwise(fake, pair_set, judge="a-judge")
    again = json.loads(board(pair_set, "--judge", "a-judge", "--format", "json"))
    assert (again["usable_pairs"], again["judge_chosen_by"]) == (12, "request")
    assert again["judges"] == ["a-judge", "b-judge"]
    assert json.loads(board(pair_set, "--format", "json"))["judge"] == "a-judge"  # 12 = 12: name


def test_a_position_bias_is_counted_and_its_pairs_are_ties(pair_set):
    with FakeLLM(position_bias=0.5) as fake:
        judge_pairwise(fake, pair_set)
    found = json.loads(board(pair_set, "--format", "json"))
    schema_validator("pairwise-board").validate(found)
    inconsistent = found["position_inconsistent"]
    assert 0 < inconsistent < 12 and found["usable_pairs"] == 12
    ties = sum(
        found["compared"][a][b] * (1 - abs(2 * found["win_rate"][a][b] - 1))
        for a, b in (("ann", "bob"), ("bob", "cat"))
    )
    assert ties >= inconsistent - 4  # ann–cat's four pairs are ties either way


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--split", "hard"], "--split: for the rubric board only"),
        (["--dataset", "pw", "--run", "3"], "--dataset, --run: for the rubric board only"),
        (["--format", "csv"], "table or json"),
        (["--judge", "nobody"], "judge 'nobody' has no run over the pairwise set 'set'"),
    ],
)
def test_what_the_pairwise_board_refuses(pair_set, args, words):
    with FakeLLM() as fake:
        judge_pairwise(fake, pair_set)
    with pytest.raises(CommandError, match=words) as refused:
        board(pair_set, *args)
    assert refused.value.returncode == 2


def test_an_unknown_or_unjudged_set_exits_2(pair_set):
    with pytest.raises(CommandError, match="no pairwise set named 'other'"):
        board("other")
    with pytest.raises(CommandError, match="no judge has run over the pairwise set 'set'"):
        board(pair_set)


def test_a_pair_with_an_error_is_left_out_and_a_board_without_pairs_says_why(pair_set):
    draw("duo", "--dataset", "pw", "--models", "ann,bob")
    with FakeLLM() as fake:
        # Three unusable replies to the first prompt showing ann's case-0 answer: that order
        # ends in error after its three asks, and its pair is left out.
        fake.fail_prompt(f"{TRIO['ann']}（0）", "malformed", "malformed", "malformed")
        with pytest.raises(CommandError):  # exit 1: one order ended in error
            judge_pairwise(fake, pair_set, "--concurrency", "1")
        found = json.loads(board(pair_set, "--format", "json"))
        assert (found["pairs"], found["usable_pairs"]) == (12, 11)
        assert sum(found["compared"]["ann"].values()) == 7  # 8 pairs with ann, one left out
        fake.fail_prompt(f"{TRIO['ann']}（0）", "malformed", "malformed", "malformed")
        with pytest.raises(CommandError):
            judge_pairwise(fake, "duo", "--limit", "1", "--concurrency", "1")
    found = json.loads(board("duo", "--format", "json"))
    schema_validator("pairwise-board").validate(found)
    assert (found["pairs"], found["usable_pairs"], found["models"]) == (1, 0, [])
    assert found["reason"] == "no comparisons"
    assert "no ranking: no comparisons" in board("duo")
