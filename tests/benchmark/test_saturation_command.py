"""`heartbench saturation`: one judge's stored verdicts on several models, in JSON and a table."""

import json

import pytest
from django.core.management import CommandError, call_command

from benchmark.models import JudgeRun, Response, Verdict
from benchmark.selectors.leaderboard import judge_run_scores
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.llm import judge_randomly
from tests.builders.schemas import schema_validator

pytestmark = pytest.mark.django_db

RUBRIC = [("warmth", 3), ("warmth", -10), ("curiosity", 6), ("catastrophic", None)]
MET, MISS, ERR = "met", "not_met", "error"


def judge(run, case, states):
    response = Response.objects.filter(model=run.model, case=case).first() or ResponseFactory(
        model=run.model, case=case
    )
    for item, state in zip(case.rubric.order_by("position"), states, strict=True):
        Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)


@pytest.fixture
def judged():
    dataset = DatasetFactory(name="draft-set")
    easy = case_with_rubric(dataset=dataset, rubric=RUBRIC, question_id="easy")
    split = case_with_rubric(dataset=dataset, rubric=RUBRIC, question_id="split")
    claude = JudgeFactory(name="claude")
    runs = {
        name: JudgeRunFactory(judge=claude, dataset=dataset, model=ModelUnderTestFactory(name=name))
        for name in ("m1", "m2", "m3")
    }
    for name, run in runs.items():
        judge(run, easy, [MET, MISS, MET, MISS])  # 100 for every model
        judge(run, split, [MET, MISS, MET if name == "m1" else MISS, MISS])
    other = JudgeRunFactory(
        judge=JudgeFactory(name="other"), dataset=dataset, model=runs["m1"].model
    )
    judge(other, easy, [ERR, MISS, MET, MISS])
    return dataset, runs


def _json(capsys, *args):
    call_command("saturation", "--dataset", "draft-set", "--format", "json", *args)
    return json.loads(capsys.readouterr().out)


def test_json_over_every_model_of_the_judge_covering_most(judged, capsys):
    data = _json(capsys)
    summary = data["summary"]
    assert summary["judge"] == "claude" and summary["models"] == ["m1", "m2", "m3"]
    by_key = {(c["question_id"], c["position"]): c for c in data["criteria"]}
    assert by_key["easy", 0]["saturated"] and by_key["easy", 2]["saturated"]
    assert not by_key["easy", 1]["saturated"]  # never hit
    assert by_key["split", 2]["hit_rate"] == pytest.approx(1 / 3)
    assert by_key["split", 2]["discrimination"] == pytest.approx(1.0)
    cases = {c["question_id"]: c for c in data["cases"]}
    assert cases["easy"]["mean_score"] == pytest.approx(100.0) and cases["easy"]["too_easy"]
    assert cases["split"]["proposed_hard"] and not cases["easy"]["proposed_hard"]
    assert summary["saturated"] == 3 and summary["too_easy"] == 1
    schema_validator("saturation").validate(data)


def test_models_narrow_the_analysis_and_change_saturation(judged, capsys):
    data = _json(capsys, "--models", "m2,m3")
    assert data["summary"]["models"] == ["m2", "m3"]
    split_warmth = next(
        c for c in data["criteria"] if (c["question_id"], c["position"]) == ("split", 2)
    )
    assert split_warmth["hit_rate"] == 0.0 and split_warmth["discrimination"] is None


def test_a_model_the_judge_did_not_run_is_a_clear_error(judged):
    with pytest.raises(CommandError, match="judge 'claude' did not judge 'nobody'"):
        call_command("saturation", "--dataset", "draft-set", "--models", "m1,nobody")


def test_a_judge_with_no_case_every_model_scored_is_refused(judged):
    # "other" judged m1 alone: an error on "easy", nothing on "split".
    with pytest.raises(CommandError, match="no case has a met / not met verdict from every"):
        call_command("saturation", "--dataset", "draft-set", "--judge", "other")


def test_a_case_a_model_has_an_error_on_is_excluded_and_named(judged, capsys):
    _, runs = judged
    Verdict.objects.filter(run=runs["m2"], rubric_item__case__question_id="split").filter(
        rubric_item__position=3
    ).update(state="error")
    data = _json(capsys)
    assert [c["question_id"] for c in data["cases"]] == ["easy"]
    assert data["summary"]["excluded_cases"] == [{"question_id": "split", "models": ["m2"]}]
    call_command("saturation", "--dataset", "draft-set")
    assert "left out (an error or no verdict): split (m2)" in capsys.readouterr().out


def test_unknown_dataset_and_bad_quantile_are_refused(judged):
    with pytest.raises(CommandError, match="no dataset named"):
        call_command("saturation", "--dataset", "nope")
    with pytest.raises(CommandError, match="between 0 and 1"):
        call_command("saturation", "--dataset", "draft-set", "--hard-quantile", "1")


def test_table_lists_saturated_criteria_and_flags(judged, capsys):
    call_command("saturation", "--dataset", "draft-set", "--easy-threshold", "90")
    out = capsys.readouterr().out
    assert "judge claude, models m1, m2, m3" in out
    assert "  easy #0" in out and "  easy #2" in out
    assert "easy  100.00  too_easy" in out
    assert "proposed_hard" in out


@pytest.mark.slow
def test_on_the_released_data_the_flags_follow_the_verdicts_and_the_leaderboards_scores(
    released, capsys
):
    dataset, rows = released
    details = {
        name: judge_randomly(dataset, rows, name=name, seed=seed)
        for seed, name in enumerate(("r1", "r2", "r3"), start=1)
    }
    call_command("saturation", "--dataset", dataset.name, "--format", "json")
    data = json.loads(capsys.readouterr().out)
    schema_validator("saturation").validate(data)
    summary = data["summary"]
    # 2,818 scored criteria and one or two catastrophic ones per case.
    assert (summary["cases"], summary["criteria"]) == (296, 3114)
    assert 0.3 <= summary["hard_share"] < 0.35  # ties can only add cases at the cutoff
    by_key = {(c["question_id"], c["position"]): c for c in data["criteria"]}
    for row in rows:
        for position, item in enumerate(row["rubric"]):
            hits = [details[name][row["question_id"]][position] for name in details]
            stat = by_key[row["question_id"], position]
            assert stat["hit_rate"] == pytest.approx(sum(hits) / 3)
            positive = item["dimension"] != "其他" and (item["score"] or 0) > 0
            assert stat["saturated"] == (positive and all(hits))
    # A case's mean score is the mean of the leaderboard's question scores of the three runs.
    per_run = [judge_run_scores(run=run).cases for run in JudgeRun.objects.all()]
    question_ids = dict(dataset.cases.values_list("id", "question_id"))
    expected = {
        question_ids[case_id]: sum(scores[case_id].score for scores in per_run) / 3
        for case_id in question_ids
    }
    for case in data["cases"]:
        assert case["mean_score"] == pytest.approx(expected[case["question_id"]], abs=1e-9)
        assert case["too_easy"] == (case["mean_score"] > 80)
