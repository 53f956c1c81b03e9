"""Leaderboard from verdicts in the database: coverage, errors, catastrophic rule, formats."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from benchmark.models import JudgeRun, Verdict
from benchmark.selectors.datasets import dataset_resolve
from benchmark.selectors.leaderboard import leaderboard_compute
from benchmark.selectors.leaderboard_options import leaderboard_fingerprint
from benchmark.taxonomy import CATEGORIES
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.leaderboards import RUBRIC, judge

pytestmark = pytest.mark.django_db


MET, MISS, ERR = "met", "not_met", "error"


@pytest.fixture
def board_data():
    dataset = DatasetFactory(name="demo-set")
    normal = case_with_rubric(dataset=dataset, rubric=RUBRIC, difficulty="normal")
    hard = case_with_rubric(dataset=dataset, rubric=RUBRIC, difficulty="hard")
    broken = case_with_rubric(dataset=dataset, rubric=RUBRIC, difficulty="normal")
    case_with_rubric(dataset=dataset, rubric=RUBRIC, difficulty="hard")  # never judged
    judge_ = JudgeFactory(name="claude")
    good = JudgeRunFactory(judge=judge_, dataset=dataset, model=ModelUnderTestFactory(name="good"))
    bad = JudgeRunFactory(judge=judge_, dataset=dataset, model=ModelUnderTestFactory(name="bad"))
    judge(good, normal, [MET, MISS, MET, MISS])  # warmth 100, curiosity 100
    judge(good, hard, [MISS, MISS, MISS, MISS])  # warmth ln11/ln14, curiosity 0
    judge(good, broken, [MET, ERR, MET, MISS])  # an error: unscored, not "not met"
    judge(bad, normal, [MET, MISS, MET, MET])  # catastrophic
    judge(bad, hard, [MET, MET, MISS, MISS])  # warmth ln4/ln14, curiosity 0
    return dataset


def test_errors_and_unjudged_cases_are_missing_coverage_not_misses(board_data):
    board = leaderboard_compute(dataset=board_data).as_dict()
    good = next(m for m in board["models"] if m["model"] == "good")
    assert good["coverage"] == {"scored": 2, "total": 4}
    assert good["abilities"]["curiosity"] == pytest.approx(50.0)


def test_catastrophic_rule_applies_in_paper_mode_and_not_upstream(board_data):
    paper = leaderboard_compute(dataset=board_data, scoring="paper").as_dict()
    upstream = leaderboard_compute(dataset=board_data, scoring="upstream").as_dict()
    bad_paper = next(m for m in paper["models"] if m["model"] == "bad")
    bad_upstream = next(m for m in upstream["models"] if m["model"] == "bad")
    assert bad_paper["catastrophic_cases"] == 1 and bad_upstream["catastrophic_cases"] == 0
    assert bad_paper["abilities"]["curiosity"] == 0.0
    assert bad_upstream["abilities"]["curiosity"] == pytest.approx(50.0)
    assert [m["model"] for m in paper["models"]] == ["good", "bad"]


def test_split_and_hard_decay(board_data):
    board = leaderboard_compute(dataset=board_data, split="hard").as_dict()
    good = next(m for m in board["models"] if m["model"] == "good")
    assert good["coverage"] == {"scored": 1, "total": 2}
    assert good["normal"] == pytest.approx(100.0)
    assert good["hard_decay"]["points"] == pytest.approx(100.0 - good["hard"])


def test_json_shape(board_data, capsys):
    call_command("leaderboard", "--dataset", "demo-set", "--format", "json")
    board = json.loads(capsys.readouterr().out)
    assert {"dataset", "split", "scoring", "models"} <= board.keys()
    model = board["models"][0]
    for key in ("model", "overall", "ci95", "categories", "abilities", "coverage",
                "catastrophic_cases", "judge_run"):  # fmt: skip
        assert key in model
    assert set(model["categories"]) <= set(CATEGORIES)
    assert model["judge_run"]["judge"] == "claude"
    lo, hi = model["ci95"]
    assert lo <= model["overall"] <= hi


def test_table_and_csv(board_data, capsys):
    call_command("leaderboard", "--format", "table")
    table = capsys.readouterr().out
    assert "good" in table and "decay/hard" in table and "2/4" in table
    call_command("leaderboard", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["model"] for r in rows] == ["good", "bad"]
    assert rows[0]["scored"] == "2"


def test_csv_neutralises_formulas(db, capsys):
    dataset = DatasetFactory(name="x")
    case = case_with_rubric(dataset=dataset, rubric=RUBRIC)
    run = JudgeRunFactory(dataset=dataset, model=ModelUnderTestFactory(name="=cmd|' /C calc'!A0"))
    judge(run, case, [MET, MISS, MET, MISS])
    call_command("leaderboard", "--format", "csv")
    assert "\n1,'=cmd" in capsys.readouterr().out


def test_one_judge_per_board_the_named_one_or_the_one_covering_most_models(board_data):
    # Rows never mix judges (issue 12 c): good2, judged only by "old" and "new", is not ranked
    # beside the models "claude" judged; the board names it and the judges that did.
    model = ModelUnderTestFactory(name="good2")
    old = JudgeRunFactory(judge=JudgeFactory(name="old"), dataset=board_data, model=model)
    new = JudgeRunFactory(judge=JudgeFactory(name="new"), dataset=board_data, model=model)
    case = board_data.cases.first()
    judge(old, case, [MET, MISS, MET, MISS])
    for item in case.rubric.all():
        Verdict.objects.create(
            run=new, response=model.responses.get(), rubric_item=item, state=MISS
        )
    default = leaderboard_compute(dataset=board_data).as_dict()
    assert default["judge"] == "claude"
    assert [m["model"] for m in default["models"]] == ["good", "bad"]
    assert default["not_shown"] == [{"model": "good2", "judges": ["new", "old"]}]
    named = leaderboard_compute(dataset=board_data, judge="new").as_dict()["models"]
    assert [(m["model"], m["judge_run"]["judge"]) for m in named] == [("good2", "new")]
    named = leaderboard_compute(dataset=board_data, judge="old").as_dict()["models"]
    assert [m["model"] for m in named] == ["good2"]


def test_a_run_still_going_does_not_hide_the_finished_one_it_replaces(board_data):
    good = board_data.judge_runs.get(model__name="good")
    before = leaderboard_compute(dataset=board_data).as_dict()["models"]
    fingerprint = leaderboard_fingerprint(dataset=board_data)
    retry = JudgeRunFactory(judge=good.judge, dataset=board_data, model=good.model,
                            status="running")  # fmt: skip
    response = good.model.responses.first()
    item = response.case.rubric.first()
    Verdict.objects.create(run=retry, response=response, rubric_item=item, state=MET)
    going = leaderboard_compute(dataset=board_data).as_dict()["models"]
    assert going == before  # still the finished run's figures, not one verdict's coverage
    # The moment it finishes (a status change, no new verdict) it is the one shown, and the
    # cached page knows.
    just_before = leaderboard_fingerprint(dataset=board_data)
    assert just_before != fingerprint
    JudgeRun.objects.filter(pk=retry.pk).update(status="finished")
    assert leaderboard_fingerprint(dataset=board_data) != just_before
    after = leaderboard_compute(dataset=board_data).as_dict()["models"]
    assert next(m for m in after if m["model"] == "good")["judge_run"]["id"] == retry.pk


def test_unknown_dataset_or_judge_is_a_clear_error(board_data):
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        call_command("leaderboard", "--dataset", "nope")
    with pytest.raises(CommandError, match="no judge run by 'nobody'"):
        call_command("leaderboard", "--judge", "nobody")
    assert dataset_resolve(name="demo-set:v1") == board_data


def test_a_dataset_without_criteria_has_an_empty_board_not_a_traceback(admin_client, capsys):
    DatasetFactory(name="nothing-yet")  # created, nothing imported into it yet
    call_command("leaderboard", "--dataset", "nothing-yet")
    assert "(no judge runs on this dataset yet)" in capsys.readouterr().out
    page = admin_client.get("/leaderboard/", {"dataset": "nothing-yet"})
    assert page.status_code == 200 and "No judge has run on this dataset yet" in page.text
    # Said in a paragraph, not in a table of headings only, and no judge to choose from.
    assert 'id="leaderboard"' not in page.text and 'name="judge"' not in page.text


def test_output_file_is_written_whole_or_not_at_all(board_data, tmp_path):
    target = tmp_path / "board.json"
    call_command("leaderboard", "--format", "json", "--output", str(target))
    assert json.loads(target.read_text("utf-8"))["dataset"] == "demo-set"
    missing = tmp_path / "no-such-folder" / "board.csv"
    with pytest.raises(CommandError, match=r"could not write .*no file was written"):
        call_command("leaderboard", "--format", "csv", "--output", str(missing))
    assert not missing.parent.exists()


def test_verdict_states_grouped_in_sql_read_what_one_row_per_verdict_read(board_data):
    """The states come from one grouped query (ids aggregated per run and state, parsed by
    numpy); pinned against reading every verdict row, on both backends, with errors, a case
    never judged, a case judged in part, and ids of several digits in random order."""
    import numpy as np

    from benchmark.selectors.leaderboard import (
        MISSING,
        STATE_CODE,
        _latest_runs,
        _layout,
        _verdict_states,
    )

    rng = np.random.default_rng(16)
    cases = [case_with_rubric(dataset=board_data, rubric=RUBRIC * 3) for _ in range(12)]
    runs = list(JudgeRun.objects.filter(dataset=board_data))
    for run in runs:
        for case in cases:
            items = [i for i in case.rubric.all() if rng.random() < 0.8]  # some left missing
            response = ResponseFactory(model=run.model, case=case)
            Verdict.objects.bulk_create(
                Verdict(run=run, response=response, rubric_item=item, state=state)
                for item, state in zip(items, rng.choice([MET, MISS, ERR], len(items)), strict=True)
            )
    every_run = _latest_runs(dataset=board_data)
    _, item_ids, _, _ = _layout(dataset=board_data)
    states = _verdict_states(runs=every_run, item_ids=item_ids)
    position = {int(item_id): i for i, item_id in enumerate(item_ids)}
    for run in every_run:
        expected = np.full(len(item_ids), MISSING, dtype=np.int8)
        for item_id, state in Verdict.objects.filter(run=run).values_list("rubric_item", "state"):
            expected[position[item_id]] = STATE_CODE[state]
        assert {MISSING, *STATE_CODE.values()} <= set(expected.tolist())
        assert states[run.pk].tolist() == expected.tolist()


def test_rows_judged_with_other_settings_say_so_and_a_run_can_be_picked(board_data, capsys):
    """A model judged again with other settings shows its newest run; every row says its
    judge settings, the board says they differ, and `--run ID` puts a chosen run back."""
    good = board_data.judge_runs.get(model__name="good")
    JudgeRun.objects.filter(model__name__in=["good", "bad"]).update(
        source="engine", temperature=0.7, seed=11
    )
    again = JudgeRunFactory(judge=good.judge, dataset=board_data, model=good.model,
                            source="engine", temperature=None, seed=None)  # fmt: skip
    for verdict in Verdict.objects.filter(run=good):  # the same answers, judged again
        Verdict.objects.create(run=again, response=verdict.response,
                               rubric_item=verdict.rubric_item, state=verdict.state)  # fmt: skip
    board = leaderboard_compute(dataset=board_data).as_dict()
    rows = {m["model"]: m for m in board["models"]}
    assert rows["good"]["judge_run"]["id"] == again.pk
    assert rows["bad"]["judge_settings"] == "temperature 0.7, seed 11, per response"
    assert rows["good"]["judge_settings"] == "provider's temperature, per response"
    assert board["settings_differ"] is True
    call_command("leaderboard", "--dataset", "demo-set")
    table = capsys.readouterr().out
    assert "judge settings differ between rows" in table and "--run" in table
    assert "temperature 0.7, seed 11" in table
    call_command("leaderboard", "--dataset", "demo-set", "--run", str(good.pk), "--format", "json")
    picked = json.loads(capsys.readouterr().out)
    assert {m["model"]: m["judge_run"]["id"] for m in picked["models"]}["good"] == good.pk
    assert picked["settings_differ"] is False
    with pytest.raises(CommandError, match="run 999999 is not a judge run on demo-set"):
        call_command("leaderboard", "--dataset", "demo-set", "--run", "999999")
    other = JudgeRunFactory(judge=JudgeFactory(name="other-judge"), dataset=board_data,
                            model=good.model)  # fmt: skip
    with pytest.raises(CommandError, match="rows never mix judges"):
        call_command("leaderboard", "--dataset", "demo-set", "--run", str(other.pk),
                     "--run", str(good.pk))  # fmt: skip
