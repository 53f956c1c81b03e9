"""`heartbench pairwise draw`: every pair or a seeded stratified sample, the score-gap filter,
canonical order, the database's constraints, and bad input refused with exit 2, nothing
written."""

import pytest
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction

from benchmark.models import JudgeRun, PairwisePair, PairwiseSet, Response, RubricItem, Verdict
from tests.builders.datasets import JudgeFactory, JudgeRunFactory, ModelUnderTestFactory
from tests.builders.pairwise import answered_by, draw, pairs_of

pytestmark = pytest.mark.django_db

# Created in this order so that ids do not follow names: the canonical order is the name's.
NAMES = ["zeta", "alpha", "mid"]


def keys(name: str) -> list[tuple[str, str, str]]:
    return sorted(
        (p.case.question_id, p.response_a.model.name, p.response_b.model.name)
        for p in pairs_of(name)
    )


def test_every_pair_of_every_case_in_model_name_order():
    dataset, _ = answered_by(names=NAMES, cases=3)
    out = draw("all", "--dataset", dataset.name, "--models", "zeta,alpha,mid")
    assert "9 pairs of 9" in out
    pairs = pairs_of("all")
    assert len(pairs) == 9  # 3 cases × C(3, 2)
    assert {(p.response_a.model.name, p.response_b.model.name) for p in pairs} == {
        ("alpha", "mid"),
        ("alpha", "zeta"),
        ("mid", "zeta"),
    }
    for pair in pairs:
        assert pair.response_a.case_id == pair.response_b.case_id == pair.case_id
    pair_set = PairwiseSet.objects.get(name="all")
    assert sorted(m.name for m in pair_set.models_under_test.all()) == sorted(NAMES)
    assert pair_set.sample is None and pair_set.seed is None


def test_the_database_keeps_a_pair_two_responses_once_per_set():
    dataset, _ = answered_by(names=["x", "y"], cases=1)
    draw("s", "--dataset", dataset.name, "--models", "x,y")
    (pair,) = pairs_of("s")
    with pytest.raises(IntegrityError), transaction.atomic():
        PairwisePair.objects.create(  # the same pair, the other way round
            pair_set=pair.pair_set,
            case=pair.case,
            response_a=pair.response_b,
            response_b=pair.response_a,
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        PairwisePair.objects.create(
            pair_set=pair.pair_set,
            case=pair.case,
            response_a=pair.response_a,
            response_b=pair.response_a,
        )


def test_a_seeded_sample_is_reproducible_and_stratified_by_case():
    # 6 cases, 2 models: one pair per case; 4 normal, 2 hard. A sample of 3 is half of each
    # stratum (largest remainder): 2 normal pairs and 1 hard one.
    difficulties = ["normal", "normal", "hard", "normal", "hard", "normal"]
    dataset, _ = answered_by(names=["x", "y"], cases=6, difficulties=difficulties)
    common = ["--dataset", dataset.name, "--models", "x,y", "--sample", "3"]
    out = draw("first", *common, "--seed", "7")
    assert "3 pairs of 6, seed 7" in out
    draw("again", *common, "--seed", "7")
    assert keys("first") == keys("again")
    hard = [p for p in pairs_of("first") if p.case.difficulty == "hard"]
    assert len(hard) == 1 and len(pairs_of("first")) == 3
    summary = PairwiseSet.objects.get(name="first").draw_summary
    assert summary["strata"] == {
        "hard × 职场心理": {"sampled": 1, "pairs": 2},
        "normal × 职场心理": {"sampled": 2, "pairs": 4},
    }
    seeds = {tuple(keys("first"))}
    for seed in range(8):
        draw(f"s{seed}", *common, "--seed", str(seed))
        seeds.add(tuple(keys(f"s{seed}")))
    assert len(seeds) > 1  # the seed does choose


def _judged(run: JudgeRun, *, met_positive: set[str]) -> None:
    """Verdicts for every criterion of the run's model: each positive criterion met when its
    ability is in ``met_positive``; negative and catastrophic ones never."""
    for response in Response.objects.filter(model=run.model):
        for item in RubricItem.objects.filter(case=response.case):
            met = item.points is not None and item.points > 0 and item.ability in met_positive
            Verdict.objects.create(
                run=run,
                response=response,
                rubric_item=item,
                state=Verdict.State.MET if met else Verdict.State.NOT_MET,
            )


def test_only_pairs_within_the_score_gap_of_the_named_judge():
    # The rubric: warmth +3, curiosity +5, emotional_coping −5, catastrophic. Case scores by
    # hand (eq. 1): "top" meets both positives: (100 + 100 + 100) / 3 = 100; "low" none:
    # (0 + 0 + 100) / 3 = 33.3; "half" warmth only: (100 + 0 + 100) / 3 = 66.7.
    dataset, models = answered_by(names=["top", "low", "half"], cases=2)
    judge = JudgeFactory(name="scorer")
    for name, met in (("top", {"warmth", "curiosity"}), ("low", set()), ("half", {"warmth"})):
        _judged(JudgeRunFactory(judge=judge, model=models[name], dataset=dataset), met_positive=met)
    out = draw("close", "--dataset", dataset.name, "--models", "top,low,half",
               "--max-score-gap", "50", "--score-judge", "scorer")  # fmt: skip
    assert "4 pairs of 6 (4 within a score gap of 50)" in out
    assert {(a, b) for _, a, b in keys("close")} == {("half", "low"), ("half", "top")}
    with pytest.raises(CommandError, match="no pair is left to draw") as refused:
        draw("closer", "--dataset", dataset.name, "--models", "top,low,half",
             "--max-score-gap", "33.3", "--score-judge", "scorer")  # fmt: skip
    assert refused.value.returncode == 2  # 33.33… is not less than 33.3
    assert not PairwiseSet.objects.filter(name="closer").exists()


def test_a_pair_with_an_unscored_side_is_left_out_of_a_gap_filter():
    dataset, models = answered_by(names=["p", "q"], cases=2)
    judge = JudgeFactory(name="scorer")
    for name in ("p", "q"):
        _judged(JudgeRunFactory(judge=judge, model=models[name], dataset=dataset),
                met_positive={"warmth"})  # fmt: skip
    first = Verdict.objects.filter(run__model=models["p"]).order_by("response__case__position")
    Verdict.objects.filter(pk=first.first().pk).update(state=Verdict.State.ERROR)
    draw("gap", "--dataset", dataset.name, "--models", "p,q", "--max-score-gap", "1",
         "--score-judge", "scorer")  # fmt: skip
    assert len(keys("gap")) == 1


@pytest.fixture
def answered():
    dataset, _ = answered_by(names=["x", "y"], cases=2, name="ds")
    ModelUnderTestFactory(name="silent")
    return dataset


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--dataset", "nope", "--models", "x,y"], "no dataset named 'nope'"),
        (["--dataset", "ds", "--models", "x,ghost"], "no model under test named 'ghost'"),
        (["--dataset", "ds", "--models", "x"], "at least two different models"),
        (["--dataset", "ds", "--models", "x,silent"], "no answers in dataset ds v1 from: silent"),
        (["--dataset", "ds", "--models", "x,y", "--max-score-gap", "5"], "go together"),
        (
            ["--dataset", "ds", "--models", "x,y", "--max-score-gap", "5", "--score-judge", "j"],
            "judge 'j' has no run on dataset ds v1 for: x, y",
        ),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(answered, args, words):
    with pytest.raises(CommandError) as refused:
        draw("bad", *args)
    assert refused.value.returncode == 2
    assert words in str(refused.value)
    assert not PairwiseSet.objects.exists() and not PairwisePair.objects.exists()


def test_a_taken_name_is_refused(answered):
    draw("s", "--dataset", "ds", "--models", "x,y")
    with pytest.raises(CommandError) as refused:
        draw("s", "--dataset", "ds", "--models", "x,y")
    assert refused.value.returncode == 2 and "exists already" in str(refused.value)
    assert PairwisePair.objects.count() == 2
