"""A pairwise study (issue 43 item 3, the validation side): `heartbench study create --pairwise`
samples cases and takes the set's pairs on them; three blind choices give a pair its gold by
the one majority rule ("3/3", "2/1"); a three-way split waits for a senior, who sees the pair
in their own order and none of the raters' choices, and decides with a reason; a study closed
early sends a half-rated pair to the senior whole."""

import io

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotation.models import Assignment, PairwiseChoice, Unit
from annotation.pairwise import as_shown
from benchmark.models import AuditEvent, PairwisePair
from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import api_for
from tests.builders.pairwise import answered_by, choose_all, draw
from validation import services
from validation.gold import gold_from_choices
from validation.models import PairwiseGold, Study, StudyUnit
from validation.outcome import NeedsSenior, PairSettled, Waiting, pair_outcome

pytestmark = pytest.mark.django_db

# Each pair's three choices in the pair's stored order, by the pair's position in the set.
PLANNED = [("a", "a", "a"), ("a", "a", "b"), ("a", "b", "tie")]
REST = ("tie", "tie", "tie")


def study(*args: str) -> str:
    out = io.StringIO()
    call_command("study", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def pairwise_study():
    texts = {"ann": "我在听。", "bob": "说说看？", "cat": "辛苦了。"}
    answered_by(names=list(texts), cases=2, name="pw", texts=lambda i, n: f"{texts[n]}（{i}）")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    raters = [ExpertFactory() for _ in range(3)]
    senior = ExpertFactory(tier="senior", user__username="senior-pw")
    said = study("create", "pairs", "--pairwise", "set", "--fraction", "1", "--seed", "3")
    assert said.startswith("pairwise study pairs created (draft): 2 cases, 6 pairs")
    found = Study.objects.get(name="pairs")
    services.study_open(study=found)
    return found, raters, senior


def planned(pair: PairwisePair, rater: int) -> str:
    order = list(PairwisePair.objects.order_by("pk").values_list("pk", flat=True))
    position = order.index(pair.pk)
    return (PLANNED[position] if position < len(PLANNED) else REST)[rater]


def test_the_pure_rule_a_majority_of_three_choices_or_a_senior():
    assert gold_from_choices(["a", "a", "a"]) == ("a", "3/3")
    assert gold_from_choices(["tie", "b", "tie"]) == ("tie", "2/1")
    assert gold_from_choices(["a", "b", "tie"]) is None
    assert pair_outcome(choices=["a", "b"], decision=None, raters=3, queued=False) == Waiting(2)
    assert pair_outcome(choices=["a", "b", "tie"], decision=None, raters=3, queued=False) == (
        NeedsSenior(items=())
    )
    decided = pair_outcome(choices=["a", "b", "tie"], decision="b", raters=3, queued=True)
    assert decided == PairSettled("b", "adjudicated") and decided.adjudicated


def test_three_choices_give_the_majority_and_a_three_way_split_waits_for_the_senior(
    pairwise_study,
):
    found, raters, senior = pairwise_study
    assert found.is_pairwise and found.pool.question_type == "pairwise"
    assert found.units.count() == 6 and found.planned_cases == 2
    choose_all(raters, planned)
    assert PairwiseChoice.objects.count() == 18
    gold = {g.study_unit.unit.pair_id: (g.winner, g.provenance) for g in PairwiseGold.objects.all()}
    pairs = list(PairwisePair.objects.order_by("pk").values_list("pk", flat=True))
    assert gold[pairs[0]] == ("a", "3/3") and gold[pairs[1]] == ("a", "2/1")
    assert all(gold[pk] == ("tie", "3/3") for pk in pairs[3:])
    split = StudyUnit.objects.get(unit__pair_id=pairs[2])
    assert pairs[2] not in gold and split.state == StudyUnit.State.AWAITING
    assert Unit.objects.get(pk=split.unit_id).needs_adjudication

    client = api_for(senior)
    claimed = client.post("/api/v1/work/adjudication/next/?study=pairs")
    assert claimed.status_code == 201
    body = claimed.json()
    unit = body["unit"]
    assert unit["question_type"] == "pairwise" and unit["criteria"] == []
    assert not unit["whole_unit"] and "choices" not in unit  # no rater's choice, not counted
    assert len(unit["responses"]) == 2
    assert not any(name in str(body) for name in ("ann", "bob", "cat", "model"))
    url = f"/api/v1/work/adjudication/{body['id']}/submit/"
    refused = client.post(url, {"choice": "a", "reason": "  "}, format="json")
    assert refused.status_code == 400 and "reason" in refused.json()
    assert not PairwiseGold.objects.filter(study_unit=split).exists()
    # The rating endpoint does not take a senior's decision.
    wrong = client.post(f"/api/v1/work/rating/{body['id']}/submit/", {"choice": "a"}, format="json")
    assert wrong.status_code == 409
    decided = client.post(url, {"choice": "b", "reason": "B 更共情"}, format="json")
    assert decided.status_code == 201
    assignment = Assignment.objects.get(public_id=body["id"])
    stored = "a" if as_shown("a", shuffle_seed=assignment.shuffle_seed) == "b" else "b"
    gold = PairwiseGold.objects.get(study_unit=split)
    assert (gold.winner, gold.provenance) == (stored, "adjudicated")
    assert StudyUnit.objects.get(pk=split.pk).state == StudyUnit.State.ADJUDICATED
    event = AuditEvent.objects.get(action="adjudication.decide")
    assert event.data["winner"] == stored and event.actor == senior.user


def test_a_pair_half_rated_at_the_close_goes_to_the_senior_whole(pairwise_study):
    found, raters, senior = pairwise_study
    choose_all(raters[:2], planned, limit=1)
    study("close", "pairs", "--partial", "senior", "--unrated", "drop", "--yes")
    half = StudyUnit.objects.filter(study=found, state=StudyUnit.State.INCOMPLETE)
    assert half.count() >= 1
    client = api_for(senior)
    body = client.post("/api/v1/work/adjudication/next/?study=pairs").json()
    assert body["unit"]["whole_unit"] and "choices" not in body["unit"]
    url = f"/api/v1/work/adjudication/{body['id']}/submit/"
    assert (
        client.post(url, {"choice": "tie", "reason": "难分高下"}, format="json").status_code == 201
    )
    unit_id = Assignment.objects.get(public_id=body["id"]).unit_id
    gold = PairwiseGold.objects.get(study_unit__unit_id=unit_id)
    assert (gold.winner, gold.provenance) == ("tie", "adjudicated")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--pairwise", "nope"], "no pairwise set named 'nope'"),
        (["--pairwise", "set", "--dataset", "pw"], "--dataset: not for a pairwise study"),
        (["--pairwise", "set", "--adjudicate-splits", "*"], "--adjudicate-splits"),
        (["--pairwise", "set", "--gate-agreement", "0.5"], "--gate-*"),
        (["--pairwise", "set", "--fraction", "auto"], "--fraction auto"),
        ([], "give --dataset and --models"),
    ],
)
def test_a_pairwise_study_refuses_what_is_not_for_it(args, said):
    answered_by(names=["ann", "bob"], cases=1, name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob")
    with pytest.raises(CommandError, match=said.replace("*", r"\*")):
        study("create", "p2", *args)
    assert not Study.objects.exists()


def test_the_admin_api_creates_a_pairwise_study_and_refuses_rubric_options(admin_user):
    answered_by(names=["ann", "bob", "cat"], cases=2, name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    client = APIClient()
    client.force_authenticate(admin_user)
    url = "/api/v1/admin/studies/"
    assert client.post(url, {"name": "x"}, format="json").json().keys() == {"dataset", "models"}
    for extra in ({"dataset": "pw"}, {"models": ["ann"]}, {"gate": {"agreement_min": 0.5}}):
        refused = client.post(url, {"name": "p", "pair_set": "set", **extra}, format="json")
        assert refused.status_code == 400 and "pair_set" in refused.json(), extra
    unknown = client.post(url, {"name": "p", "pair_set": "nope"}, format="json")
    assert unknown.status_code == 400 and "nope" in unknown.json()["pair_set"][0]
    made = client.post(url, {"name": "p", "pair_set": "set", "fraction": 1}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["question_type"], body["pair_set"], body["units"]) == ("pairwise", "set", 6)
    assert body["models"] == ["ann", "bob", "cat"] and body["dataset"] == "pw"
    assert not Study.objects.exclude(name="p").exists()
