"""Why an expert gets no unit: each state has its own answer, the same from the claim, the
API and the selector the pages use (issue 12, defect i).

The API keeps 204 for "nothing to hand out now" and names the state in the
``HeartBench-Work-State`` header; a study the expert is not part of stays 404, with the state
in the body too.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation import services
from annotation.models import Assignment
from annotation.selectors import work as selectors_work
from annotation.selectors.work import WorkState
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses, open_study
from validation import services as study_services

pytestmark = pytest.mark.django_db

HEADER = "HeartBench-Work-State"


def api_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def next_reply(user, study="study-a"):
    return api_for(user).post(f"/api/v1/assignments/next/?study={study}")


def rate_one(expert, study) -> None:
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    services.assignment_submit(assignment=assignment, labels=all_labels(assignment))


def state_of(expert, name="study-a") -> WorkState:
    return selectors_work.study_work_state(user=expert.user, name=name)[1]


def listed_state(expert, name="study-a") -> str:
    rows = api_for(expert.user).get("/api/v1/studies/").json()["results"]
    return {row["name"]: row["work_state"] for row in rows}[name]


def test_an_expert_with_work_gets_a_unit_and_the_state_says_ready():
    expert = ExpertFactory()
    open_study(cases=2, experts=[expert])
    assert state_of(expert) == WorkState.READY
    assert listed_state(expert) == "ready"
    reply = next_reply(expert.user)
    assert reply.status_code == 201 and HEADER not in reply


def test_capacity_reached_for_today_is_its_own_state():
    expert = ExpertFactory(daily_capacity=1)
    study = open_study(cases=3, experts=[expert])
    rate_one(expert, study)
    assert state_of(expert) == WorkState.CAPACITY_REACHED
    assert listed_state(expert) == "capacity_reached"
    reply = next_reply(expert.user)
    assert reply.status_code == 204 and reply[HEADER] == "capacity_reached"
    assert not reply.content


def test_a_closed_study_says_so():
    expert = ExpertFactory()
    study = open_study(cases=2, experts=[expert])
    study_services.study_close(study=study)
    assert state_of(expert) == WorkState.STUDY_CLOSED
    assert listed_state(expert) == "study_closed"
    reply = next_reply(expert.user)
    assert reply.status_code == 204 and reply[HEADER] == "study_closed"


def test_nothing_left_for_you_when_every_unit_you_could_rate_has_its_raters():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    rate_one(expert, study)  # the only unit; nobody rates a unit twice
    assert state_of(expert) == WorkState.NOTHING_LEFT
    assert listed_state(expert) == "nothing_left"
    reply = next_reply(expert.user)
    assert reply.status_code == 204 and reply[HEADER] == "nothing_left"


def test_a_unit_under_an_expired_lease_is_work_again_for_the_pages_too():
    *raters, holder, latecomer = ExpertFactory.create_batch(4)
    study = open_study(cases=1, experts=[*raters, holder, latecomer])
    for expert in raters:
        rate_one(expert, study)
    held = services.assignment_claim_next(user=holder.user, pool=study.pool)
    assert state_of(latecomer) == WorkState.NOTHING_LEFT  # the third slot is leased
    Assignment.objects.filter(pk=held.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    # No sweep has run yet, but the claim expires the lease first: the pages agree.
    assert state_of(latecomer) == WorkState.READY
    assert next_reply(latecomer.user).status_code == 201
    # The holder who let the lease run out is not told "ready" for a unit they cannot get.
    assert state_of(holder) == WorkState.NOTHING_LEFT
    assert next_reply(holder.user)[HEADER] == "nothing_left"


def test_a_study_you_are_not_part_of_is_404_with_its_state():
    member, outsider = ExpertFactory.create_batch(2)
    open_study(cases=1, experts=[member])
    assert state_of(outsider) == WorkState.NOT_ENROLLED
    assert state_of(member, name="no-such-study") == WorkState.NOT_ENROLLED
    for user, name in ((outsider.user, "study-a"), (member.user, "no-such-study")):
        reply = next_reply(user, name)
        assert reply.status_code == 404 and reply[HEADER] == "not_enrolled"
        assert reply.json()["state"] == "not_enrolled" and reply.json()["detail"]


def test_a_draft_study_is_not_open_yet_for_its_experts_and_unknown_to_others():
    member, outsider = ExpertFactory.create_batch(2)
    dataset, models = dataset_with_responses(cases=1)
    study_services.study_create(
        name="later", dataset=dataset, models=models, fraction=1.0, seed=1, experts=[member]
    )
    assert state_of(member, "later") == WorkState.NOT_OPEN_YET
    reply = next_reply(member.user, "later")
    assert reply.status_code == 204 and reply[HEADER] == "not_open_yet"
    assert state_of(outsider, "later") == WorkState.NOT_ENROLLED
    assert next_reply(outsider.user, "later").status_code == 404
    # Drafts are not listed: the expert's list is what they may work on.
    assert "later" not in {
        row["name"] for row in api_for(member.user).get("/api/v1/studies/").json()["results"]
    }


def test_calibration_due_is_work_that_looks_like_any_other():
    # Calibration units are handed out exactly like study units (blind to the expert), so a
    # study that sends the expert to calibration is "ready", not a state of its own.
    senior = ExpertFactory(tier="senior")
    expert = ExpertFactory(daily_capacity=1)
    study = open_study(cases=2, experts=[expert])
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration_set(senior=senior))
    assert state_of(expert) == WorkState.READY
    reply = next_reply(expert.user)
    assert reply.status_code == 201 and reply.json()["kind"] == "rating"


def test_a_held_unit_comes_back_even_at_capacity():
    expert = ExpertFactory(daily_capacity=1)
    study = open_study(cases=3, experts=[expert])
    rate_one(expert, study)
    expert.daily_capacity = 2
    expert.save()
    held = next_reply(expert.user).json()["id"]
    expert.daily_capacity = 1
    expert.save()
    assert state_of(expert) == WorkState.READY
    assert next_reply(expert.user).json()["id"] == held


def test_the_claim_and_the_selector_agree():
    expert = ExpertFactory(daily_capacity=2)
    study = open_study(cases=2, experts=[expert])
    seen = []
    for _ in range(4):
        expected = state_of(expert)
        claim = services.assignment_claim_next_with_state(user=expert.user, pool=study.pool)
        seen.append(claim.state)
        assert claim.state == expected
        assert (claim.assignment is not None) == (claim.state == WorkState.READY)
        if claim.assignment is not None:
            services.assignment_submit(
                assignment=claim.assignment, labels=all_labels(claim.assignment)
            )
    assert seen == ["ready", "ready", "capacity_reached", "capacity_reached"]


def test_the_schema_documents_the_states():
    schema = APIClient().get("/api/schema/?format=json").json()
    next_op = schema["paths"]["/api/v1/work/rating/next/"]["post"]
    header = next_op["responses"]["204"]["headers"][HEADER]
    assert set(header["schema"]["enum"]) == {
        "capacity_reached", "study_closed", "nothing_left", "not_open_yet"
    }  # fmt: skip
    assert "not_enrolled" in next_op["responses"]["404"]["description"]
    listed = schema["components"]["schemas"]["StudyForExpert"]["properties"]["work_state"]
    assert "capacity_reached" in str(listed)
