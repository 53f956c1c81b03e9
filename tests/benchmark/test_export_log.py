"""`heartbench export-log`: a judge run as JSON Lines or an Inspect AI eval log."""

import io
import json
import sys

import pytest
from django.core.management import CommandError, call_command

from benchmark.models import JudgeRun, Verdict
from benchmark.scoring import Criterion, case_score
from benchmark.selectors.leaderboard import leaderboard_compute
from tests.builders.judge_log import MET, MISS, RUBRIC, logged_run
from tests.builders.schemas import schema_validator

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    return logged_run()


def jsonl_lines(run_id, **options):
    out = io.StringIO()
    call_command("export_log", run=run_id, format="jsonl", stdout=out, **options)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def expected_score(states):
    criteria = [Criterion(ability, points) for ability, points in RUBRIC]
    return case_score(criteria=criteria, hits=[s == MET for s in states]).score


def test_jsonl_has_one_line_per_answer_with_verdicts_and_scores(run):
    ok, failed = jsonl_lines(run.pk)
    assert (ok["question_id"], failed["question_id"]) == ("q-ok", "q-err")
    assert ok["response"] == "answer to q-ok" and ok["dialogue"][0]["role"] == "A"
    assert [c["verdict"] for c in ok["criteria"]] == [MET, MISS, MET, MISS]
    assert ok["criteria"][2]["reasoning"] == "why 2"
    assert ok["criteria"][2]["raw_reply"] == '{"detail": "met"}'
    assert ok["scored"] and ok["score"] == pytest.approx(expected_score([MET, MISS, MET, MISS]))
    assert ok["catastrophic"] is False and set(ok["abilities"]) == {"warmth", "curiosity"}
    # An error is an unscored question, never a miss.
    assert (failed["scored"], failed["score"], failed["abilities"]) == (False, None, None)
    assert ok["run"]["judge_model"] == "claude-sonnet-4-5"
    assert (ok["run"]["tokens_in"], ok["run"]["cost"]) == (1200, 0.25)
    for line in (ok, failed):
        schema_validator("export-log").validate(line)


def test_jsonl_to_a_file_and_upstream_scoring(run, tmp_path):
    target = tmp_path / "run.jsonl"
    call_command("export_log", run=run.pk, format="jsonl", output=str(target), scoring="upstream")
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [line["scoring"] for line in lines] == ["upstream", "upstream"]


def test_a_bad_run_id_is_one_line_and_writes_nothing(run, tmp_path):
    target = tmp_path / "none.jsonl"
    with pytest.raises(CommandError) as caught:
        call_command("export_log", run=run.pk + 99, format="jsonl", output=str(target))
    assert caught.value.returncode == 2
    assert str(caught.value) == f"no judge run with id {run.pk + 99}"
    assert list(tmp_path.iterdir()) == []


def test_inspect_without_the_extra_says_how_to_install_it(run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import fails as if absent
    target = tmp_path / "run.eval"
    with pytest.raises(CommandError) as caught:
        call_command("export_log", run=run.pk, format="inspect", output=str(target))
    assert caught.value.returncode == 2
    message = str(caught.value)
    assert "\n" not in message and "pip install --editable '.[inspect]'" in message
    assert list(tmp_path.iterdir()) == []


def test_inspect_needs_an_output_file(run):
    pytest.importorskip("inspect_ai")
    with pytest.raises(CommandError, match="give --output") as caught:
        call_command("export_log", run=run.pk, format="inspect")
    assert caught.value.returncode == 2


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_log_reads_back_with_inspect_ai(run, tmp_path, suffix):
    inspect_log = pytest.importorskip("inspect_ai.log")
    target = tmp_path / f"run{suffix}"
    call_command("export_log", run=run.pk, format="inspect", output=str(target))
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no partial file left
    log = inspect_log.read_eval_log(str(target))
    assert log.status == "success"
    assert (log.eval.task, log.eval.model, log.eval.dataset.name) == (
        "heartbench judge claude on log-set v1",
        "warm-bot",
        "log-set",
    )
    assert log.eval.metadata["judge_run"]["judge"] == "claude"
    samples = {sample.id: sample for sample in log.samples}  # .eval files order them by id
    ok, failed = samples.pop("q-ok"), samples.pop("q-err")
    assert samples == {}
    assert [m.role for m in ok.messages] == ["user", "assistant", "user", "assistant"]
    assert ok.output.completion == "answer to q-ok"
    exact = expected_score([MET, MISS, MET, MISS])
    assert ok.scores["question_score"].value == round(exact, 2)  # as the board shows it
    assert ok.scores["question_score"].metadata["score"] == pytest.approx(exact)
    # One scorer per ability, the same in every sample (never criterion_<n>, whose meaning
    # changes from question to question), its criteria with verdicts and reasons beside it.
    # The case score first, then the abilities in the taxonomy's order: the viewer's answer
    # column reads a sample's first score, which every sample then has.
    assert list(ok.scores) == ["question_score", "curiosity", "warmth", "catastrophic"]
    assert ok.scores["curiosity"].value == pytest.approx(100.0)
    warmth = ok.scores["warmth"].metadata["criteria"]
    assert [(c["position"], c["verdict"]) for c in warmth] == [(0, "met"), (1, "not_met")]
    assert (
        warmth[0]["raw_reply"] == '{"detail": "met"}' and "why 0" in ok.scores["warmth"].explanation
    )
    assert ok.scores["warmth"].explanation.splitlines()[1].startswith("2. [-10] ")
    assert "not met." in ok.scores["warmth"].explanation
    assert ok.scores["question_score"].explanation.startswith("the mean of the abilities' scores: ")
    assert ok.scores["catastrophic"].value == 0
    assert ok.scores["question_score"].answer == "answer to q-ok"
    assert failed.scores["warmth"].value == "error"
    assert "question_score" not in failed.scores
    assert ok.metadata["difficulty"] == "normal"
    board = leaderboard_compute(dataset=run.dataset).as_dict()["models"][0]
    (score,) = log.results.scores
    assert score.metrics["overall"].value == pytest.approx(board["overall"])
    assert (log.results.total_samples, log.results.completed_samples) == (2, 1)
    usage = log.stats.model_usage["claude-sonnet-4-5"]
    assert (usage.input_tokens, usage.output_tokens, usage.total_cost) == (1200, 300, 0.25)


def test_a_stopped_run_is_a_cancelled_inspect_log(run, tmp_path):
    inspect_log = pytest.importorskip("inspect_ai.log")
    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.STOPPED)
    target = tmp_path / "run.eval"
    call_command("export_log", run=run.pk, format="inspect", output=str(target))
    assert inspect_log.read_eval_log(str(target)).status == "cancelled"


def test_a_criterion_not_judged_yet_leaves_the_question_unscored(run, tmp_path):
    Verdict.objects.filter(
        run=run, response__case__question_id="q-ok", rubric_item__position=3
    ).delete()
    ok = jsonl_lines(run.pk)[0]
    assert ok["criteria"][3]["verdict"] is None and ok["criteria"][3]["rubric_version"] is None
    assert (ok["scored"], ok["score"]) == (False, None)
    schema_validator("export-log").validate(ok)
    inspect_log = pytest.importorskip("inspect_ai.log")
    target = tmp_path / "run.json"
    call_command("export_log", run=run.pk, format="inspect", output=str(target))
    sample = next(s for s in inspect_log.read_eval_log(str(target)).samples if s.id == "q-ok")
    assert "catastrophic" not in sample.scores and "question_score" not in sample.scores


def test_a_run_of_some_cases_exports_only_those(run, tmp_path):
    """A `--limit` or `--sample-id` run's log holds its own cases, not every answer of the
    model; the Inspect log names the judge and dataset in its task and keeps the judge's
    temperature and seed as its generate config."""
    JudgeRun.objects.filter(pk=run.pk).update(sample_ids="q-ok", temperature=0.2, seed=9)
    assert [line["question_id"] for line in jsonl_lines(run.pk)] == ["q-ok"]
    inspect_log = pytest.importorskip("inspect_ai.log")
    target = tmp_path / "run.eval"
    call_command("export_log", run=run.pk, format="inspect", output=str(target))
    log = inspect_log.read_eval_log(str(target))
    assert [sample.id for sample in log.samples] == ["q-ok"]
    assert log.eval.task == "heartbench judge claude on log-set v1"
    config = log.eval.model_generate_config
    assert (config.temperature, config.seed) == (0.2, 9)
