"""A study's progress as an expert sees it: their own work, today's capacity and the team's."""

import datetime

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation import services
from annotation.selectors import quality as selectors_quality
from annotation.selectors import work as selectors_work
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def rate(expert, study):
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    return assignment


def test_progress_counts_my_work_what_is_left_today_and_the_team():
    experts = ExpertFactory.create_batch(3, daily_capacity=5)
    study = open_study(cases=2, experts=experts)
    me = experts[0]
    start = selectors_work.study_progress(expert=me, pool=study.pool)
    assert (start.mine, start.left_for_me, start.capacity_left) == (0, 2, 5)
    assert (start.team_complete, start.team_total) == (0, 2)

    rate(me, study)
    progress = selectors_work.study_progress(expert=me, pool=study.pool)
    assert (progress.mine, progress.left_for_me, progress.capacity_left) == (1, 1, 4)
    assert progress.team_complete == 0

    for expert in experts:
        while services.assignment_claim_next(user=expert.user, pool=study.pool) is not None:
            held = expert.assignments.get(status="leased")
            services.assignment_submit(assignment=held, labels=all_labels(held))
    done = selectors_work.study_progress(expert=me, pool=study.pool)
    assert (done.mine, done.left_for_me, done.capacity_left) == (2, 0, 3)
    assert (done.team_complete, done.team_total) == (2, 2)
    # The others see the same team, their own work.
    theirs = selectors_work.study_progress(expert=experts[1], pool=study.pool)
    assert (theirs.mine, theirs.team_complete) == (2, 2)


def test_progress_over_the_api_and_on_the_workbench_page():
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert])
    study.due_date = datetime.date(2026, 12, 31)
    study.save()
    rate(expert, study)
    client = Client()
    client.force_login(expert.user)
    data = client.get("/api/v1/studies/study-a/progress/").json()
    assert data == {
        "mine": 1,
        "left_for_me": 2,
        "left_for_me_more": False,
        "capacity_left": expert.daily_capacity - 1,
        "team_complete": 0,
        "team_total": 3,
    }
    page = client.get("/rate/study-a/").content.decode()
    assert 'data-key="mine">1<' in page and "2026-12-31" in page
    assert client.get("/api/v1/studies/other/progress/").status_code == 404


def test_a_claim_answers_with_the_progress_line_read_after_it():
    """The workbench shows the claim's ``progress`` instead of asking for it again: the same
    object the progress endpoint gives right after, the unit just handed out not left."""
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert])
    rate(expert, study)
    client = Client()
    client.force_login(expert.user)
    with CaptureQueriesContext(connection) as queries:
        claimed = client.post("/api/v1/assignments/next/?study=study-a")
    assert claimed.status_code == 201
    # Today's submissions are counted once, by the claim's study read, not again for progress.
    counting = [q for q in queries.captured_queries if '"annotation_submission"' in q["sql"]]
    assert len(counting) == 1
    progress = claimed.json()["progress"]
    assert progress == client.get("/api/v1/studies/study-a/progress/").json()
    assert (progress["mine"], progress["left_for_me"], progress["team_total"]) == (1, 1, 3)


def test_left_for_me_leaves_out_the_hard_cases_the_study_keeps_from_me():
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert])  # case 0 is hard
    assert selectors_work.study_progress(expert=expert, pool=study.pool).left_for_me == 3
    study.pool.hard_min_quality = 0.9  # no standing yet: no hard cases for this expert
    study.pool.save()
    assert selectors_work.study_progress(expert=expert, pool=study.pool).left_for_me == 2


def test_a_claim_under_a_hard_case_policy_reads_the_experts_quality_once(monkeypatch):
    """The claim applies the study's hard-case policy (the expert's quality against the
    study's bar); its progress line counts what is left under the same policy, not read again."""
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert])  # case 0 is hard
    study.pool.hard_min_quality = 0.9  # no standing yet: no hard cases for this expert
    study.pool.save()
    reads = []
    quality_get = selectors_quality.expert_quality_get
    monkeypatch.setattr(
        selectors_quality,
        "expert_quality_get",
        lambda **kwargs: reads.append(kwargs) or quality_get(**kwargs),
    )
    client = Client()
    client.force_login(expert.user)
    claimed = client.post("/api/v1/assignments/next/?study=study-a")
    assert claimed.status_code == 201
    assert len(reads) == 1
    assert claimed.json()["progress"]["left_for_me"] == 1  # 2 of 3 not hard, 1 held


def test_left_for_me_stops_counting_at_the_cap_and_says_there_are_more():
    """Past LEFT_FOR_ME_CAP the count stops (the walk over the waiting units with it): the
    API gives the cap and ``left_for_me_more``, the workbench "100+"."""
    assert selectors_work.LEFT_FOR_ME_CAP == 100
    expert = ExpertFactory()
    study = open_study(cases=34, models=3, experts=[expert])  # 102 units
    start = selectors_work.study_progress(expert=expert, pool=study.pool)
    assert (start.left_for_me, start.left_for_me_more) == (100, True)
    held = services.assignment_claim_next(user=expert.user, pool=study.pool)
    client = Client()
    client.force_login(expert.user)
    data = client.get("/api/v1/studies/study-a/progress/").json()
    assert (data["left_for_me"], data["left_for_me_more"]) == (100, True)  # 101 left
    assert 'data-key="left_for_me" data-more="left_for_me_more">100+<' in (
        client.get("/rate/study-a/").content.decode()
    )
    services.assignment_submit(assignment=held, labels=all_labels(held))
    rate(expert, study)  # holding none, 100 left: exactly the cap, nothing more
    done = selectors_work.study_progress(expert=expert, pool=study.pool)
    assert (done.left_for_me, done.left_for_me_more) == (100, False)
