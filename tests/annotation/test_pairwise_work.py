"""Pairwise choices on the one work queue (issue 43 item 3, the annotation side): a pool of
response pairs claimed, leased and submitted through the rating path; each assignment shows the
pair in its own order, names no model and no response, and stores the choice in the pair's
order with the side shown first; a malformed, repeated or conflicting answer is refused as a
rating's is; three choices complete a pair."""

import json

import pytest
from rest_framework.test import APIClient

from annotation import services
from annotation.models import Assignment, PairwiseChoice, Pool, Submission, Unit
from annotation.pairwise import choice_parse, first_shown
from benchmark.models import AuditEvent, PairwisePair
from tests.builders.accounts import ExpertFactory
from tests.builders.pairwise import TRIO, answered_by, draw
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def client_for(expert) -> APIClient:
    client = APIClient()
    client.force_authenticate(expert.user)
    return client


def claim(expert, study="pairs"):
    return client_for(expert).post(f"/api/v1/work/rating/next/?study={study}")


def submit(expert, assignment_id, body):
    return client_for(expert).post(
        f"/api/v1/work/rating/{assignment_id}/submit/", body, format="json"
    )


@pytest.fixture
def experts():
    answered_by(names=list(TRIO), cases=2, texts=lambda i, n: f"{TRIO[n]}（{i}）", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    raters = [ExpertFactory() for _ in range(4)]
    pool = services.pool_create(
        name="pairs",
        pairs=PairwisePair.objects.filter(pair_set__name="set").order_by("pk"),
        experts=raters,
        raters_per_unit=3,
        lease_seconds=600,
    )
    services.pool_set_status(pool=pool, status=Pool.Status.OPEN)
    return raters


def test_the_rule_maps_the_choice_shown_to_the_pairs_order():
    assert (first_shown(2), first_shown(7)) == ("a", "b")
    # Shown b first: "a" (the first shown) is the stored b, "b" the stored a; a tie stays one.
    assert [choice_parse(choice=c, reason=None, shuffle_seed=7).winner for c in "ab"] == ["b", "a"]
    assert choice_parse(choice="tie", reason=" 都好 ", shuffle_seed=2).reason == "都好"


def test_a_claimed_pair_is_shown_blind_in_the_assignments_order(experts):
    pool = Pool.objects.get(name="pairs")
    assert pool.question_type == "pairwise" and pool.units_total == 6
    for expert in experts[:3]:
        claimed = claim(expert)
        assert claimed.status_code == 201
        body = claimed.json()
        unit = body["unit"]
        assert unit["question_type"] == "pairwise" and unit["criteria"] == []
        assignment = Assignment.objects.select_related("unit__pair").get(public_id=body["id"])
        pair = assignment.unit.pair
        stored = [pair.response_a.text, pair.response_b.text]
        first = first_shown(assignment.shuffle_seed)
        assert unit["responses"] == (stored if first == "a" else stored[::-1])
        text = json.dumps(body, ensure_ascii=False)
        leaked = [w for w in (*TRIO, str(pair.pk), str(pair.response_a_id)) if f'"{w}"' in text]
        assert not leaked and "ann" not in text and "model" not in text
        read = client_for(expert).get(f"/api/v1/work/rating/{body['id']}/")
        assert read.json()["unit"] == unit  # a reload shows the same order


def test_the_choice_is_stored_in_the_pairs_order_once(experts):
    expert = experts[0]
    body = claim(expert).json()
    assignment = Assignment.objects.get(public_id=body["id"])
    done = submit(expert, body["id"], {"choice": "a", "reason": "更温暖", "active_seconds": 12})
    assert done.status_code == 201
    choice = PairwiseChoice.objects.get(submission__assignment=assignment)
    assert (choice.winner, choice.first_shown, choice.reason) == (
        first_shown(assignment.shuffle_seed),
        first_shown(assignment.shuffle_seed),
        "更温暖",
    )
    assert Submission.objects.get(assignment=assignment).active_seconds == 12
    again = submit(expert, body["id"], {"choice": "a", "reason": "更温暖"})
    assert again.status_code == 200 and again.json()["id"] == done.json()["id"]
    other = submit(expert, body["id"], {"choice": "tie"})
    assert other.status_code == 409 and "another choice" in other.json()["detail"]
    event = AuditEvent.objects.get(action="rating.submit")
    assert event.data["winner"] == choice.winner and event.data["slot"] == assignment.slot
    revised = client_for(expert).post(
        f"/api/v1/work/rating/{body['id']}/revise/", {"labels": []}, format="json"
    )
    assert revised.status_code == 409 and "final" in revised.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"choice": "c"}, "choice"),
        ({}, "choice"),
        ({"choice": "a", "reason": 3}, "reason"),
        ({"choice": "a", "reason": "x\x00"}, "reason"),
        ({"choice": "a", "reason": "长" * 2001}, "reason"),
        ({"labels": []}, "choice"),
    ],
)
def test_a_malformed_choice_is_a_400_and_stores_nothing(experts, body, field):
    expert = experts[0]
    claimed = claim(expert).json()
    refused = submit(expert, claimed["id"], body)
    assert refused.status_code == 400 and field in refused.json()
    assert not Submission.objects.exists()
    assert Assignment.objects.get(public_id=claimed["id"]).status == "leased"


def test_every_pair_gets_three_choices_and_then_nothing_is_left(experts):
    for expert in experts[:3]:
        while (claimed := claim(expert)).status_code == 201:
            assert submit(expert, claimed.json()["id"], {"choice": "b"}).status_code == 201
        assert claimed.status_code == 204
    assert PairwiseChoice.objects.count() == 18  # 6 pairs × 3 raters, each rater once a pair
    assert all(u.ratings == 3 and u.ratings_complete for u in Unit.objects.all())
    assert claim(experts[3]).status_code == 204


def test_labels_are_refused_on_a_pair_and_a_choice_on_a_response():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert], name="rubric")
    body = claim(expert, study="rubric").json()
    assert body["unit"]["question_type"] == "rubric" and "responses" not in body["unit"]
    refused = submit(expert, body["id"], {"choice": "a"})
    assert refused.status_code == 400 and "labels must be a list" in refused.json()["labels"][0]
    assignment = Assignment.objects.get(public_id=body["id"])
    with pytest.raises(services.InvalidLabels, match="send labels"):
        services.pairwise_choice_submit(assignment=assignment, choice="a")
