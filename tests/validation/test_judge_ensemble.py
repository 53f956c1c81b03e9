"""`heartbench judge-ensemble create`: the item-wise majority of several judges or of one
judge's repeats, stored as a judge that the leaderboard and a study's report read like any."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.models import AuditEvent, Judge, JudgeRun, Verdict
from benchmark.selectors.leaderboard import leaderboard_compute
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.leaderboards import BOARD_TASK
from tests.builders.studies import rated_study, report_json

pytestmark = pytest.mark.django_db
MET, NOT, ERR = Verdict.State.MET, Verdict.State.NOT_MET, Verdict.State.ERROR
# Per judge, its verdicts on the 3 criteria of each of the 2 cases.
VOTES = {
    "a": [MET, MET, NOT, MET, NOT, ERR],
    "b": [MET, NOT, NOT, NOT, NOT, ERR],
    "c": [NOT, MET, MET, ERR, NOT, ERR],
}
# a b c → majority of the met / not met votes; errors do not vote; a tie is an error.
EXPECTED = [MET, MET, NOT, ERR, NOT, ERR]  # item 4: met–not met with c in error


@pytest.fixture
def judged():
    dataset = DatasetFactory(name="ens")
    models = [ModelUnderTestFactory(name=n) for n in ("m1", "m2")]
    rubric = [("warmth", 3), ("humor", 2), ("catastrophic", None)]
    cases = [case_with_rubric(dataset=dataset, rubric=rubric) for _ in range(2)]
    items = []
    for model in models:
        for case in cases:
            response = ResponseFactory(model=model, case=case)
            items += [(response, item) for item in case.rubric.order_by("position")]
    for name, states in VOTES.items():
        judge = JudgeFactory(name=name)
        for model in models:
            run = JudgeRunFactory(judge=judge, model=model, dataset=dataset)
            mine = [(r, i) for r, i in items if r.model == model]
            for (response, item), state in zip(mine, states, strict=True):
                Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)
    return dataset


def create(*args: str) -> str:
    out = io.StringIO()
    call_command("judge_ensemble", "create", *args, stdout=out)
    return out.getvalue()


def states(run: JudgeRun) -> list[str]:
    return list(
        Verdict.objects.filter(run=run)
        .order_by("response__case__position", "rubric_item__position")
        .values_list("state", flat=True)
    )


def test_the_ensemble_is_the_majority_of_its_members(judged):
    text = create("maj", "--members", "a,b,c", "--dataset", "ens")
    runs = list(JudgeRun.objects.filter(judge__name="maj").order_by("model__name"))
    assert [r.model.name for r in runs] == ["m1", "m2"] and "2 errors" in text
    for run in runs:
        assert states(run) == EXPECTED
        assert (run.status, run.source, run.done, run.errors) == ("finished", "ensemble", 6, 2)
    reasons = list(Verdict.objects.filter(run=runs[0]).values_list("reasoning", flat=True))
    assert "ensemble majority 2/3 (a: met, b: met, c: not_met)" in reasons
    assert "ensemble: a tie 1–1 (a: met, b: not_met, c: error)" in reasons
    assert Judge.objects.get(name="maj").parameters == {"ensemble": {"members": ["a", "b", "c"]}}
    assert AuditEvent.objects.filter(action="judge_run.ensemble").count() == 2
    # The leaderboard ranks under it like any judge.
    board = leaderboard_compute(dataset=judged, judge="maj").as_dict()
    assert board["judge"] == "maj" and {m["model"] for m in board["models"]} == {"m1", "m2"}


def test_its_runs_end_as_any_judge_runs_do(
    judged,
    queued,
    django_capture_on_commit_callbacks,
):
    # Told once committed (webhooks' judge_run.finished, the board warmed ahead), one per run.
    with django_capture_on_commit_callbacks(execute=True):
        create("maj", "--members", "a,b,c", "--dataset", "ens")
    assert queued == [(BOARD_TASK, {"dataset_id": judged.pk}, 0)] * 2


def test_asked_again_it_stores_new_runs_and_refuses_another_definition(judged):
    create("maj", "--members", "a,b,c", "--dataset", "ens")
    create("maj", "--members", "a,b,c", "--dataset", "ens")
    assert JudgeRun.objects.filter(judge__name="maj").count() == 4
    with pytest.raises(CommandError, match="exists and is not this ensemble"):
        create("maj", "--members", "a,b", "--dataset", "ens")
    with pytest.raises(CommandError, match="'a' exists and is not this ensemble"):
        create("a", "--members", "b,c", "--dataset", "ens")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--members", "a", "--dataset", "ens"), "at least two distinct members"),
        (("--members", "a,a", "--dataset", "ens"), "names a twice"),
        (("--members", "x,a", "--dataset", "ens"), "no model of .* that every member"),
        (("--members", "new,a", "--dataset", "ens"), "cannot be its own member"),
        (("--members", "x,x2", "--dataset", "nope"), "nope"),
        (("--repeats-of", "a", "--dataset", "ens"), "judge 'a' has repeats"),
        (("--members", "a,b", "--repeats-of", "a", "--dataset", "ens"), "not allowed with"),
        (("--members", "a,b"), "one of the arguments --dataset --study is required"),
        (("--members", "a,b", "--study", "nope"), "no study named 'nope'"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(judged, args, message):
    before = (Judge.objects.count(), JudgeRun.objects.count(), Verdict.objects.count())
    with pytest.raises(CommandError, match=message):
        create("new", *args)
    assert (Judge.objects.count(), JudgeRun.objects.count(), Verdict.objects.count()) == before


def test_the_majority_of_repeats_validated_by_a_study():
    study = rated_study(name="ens-study", cases=3, models=2)
    for run in JudgeRun.objects.filter(judge__name="judge-a"):
        # Two repeats that flip every verdict: the majority is then the flipped verdict.
        for index in (1, 2):
            repeat = JudgeRunFactory(judge=run.judge, model=run.model, dataset=run.dataset,
                                     repeat_of=run, repeat_index=index)  # fmt: skip
            for v in Verdict.objects.filter(run=run):
                state = {MET: NOT, NOT: MET}.get(v.state, ERR)
                Verdict.objects.create(run=repeat, response=v.response,
                                       rubric_item=v.rubric_item, state=state)  # fmt: skip
    text = create("a-majority", "--repeats-of", "judge-a", "--study", "ens-study")
    assert "study ens-study now validates a-majority too" in text
    reasons = Verdict.objects.filter(run__judge__name="a-majority").values_list(
        "reasoning", flat=True
    )
    assert any("judge-a#0" in r and "judge-a#2" in r for r in reasons)
    report = report_json(study.name)
    judges = {j["judge"]: j for j in report["judges"]}
    # judge-b flips judge-a, and so does the majority of judge-a's flipped repeats.
    assert judges["a-majority"]["vs_gold"]["agreement"] == judges["judge-b"]["vs_gold"]["agreement"]
    assert AuditEvent.objects.filter(action="study.judges_add").count() == 1
