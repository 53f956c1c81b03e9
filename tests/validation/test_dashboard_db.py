"""The admin dashboard against the database: figures, each alert firing, and its action."""

from collections import Counter, defaultdict
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation import services
from annotation.models import (
    Assignment,
    CalibrationAttempt,
    Label,
    PeerAgreement,
    Pool,
    Submission,
)
from annotation.quality import Agreement
from annotation.selectors import quality as selectors_quality
from annotation.selectors.quality import peer_agreement_by
from annotation.services.agreement import peer_agreements_backfill
from annotation.services.routing import (
    ROUTED_LEASE_SECONDS,
    expert_set_active,
    unit_route_to_expert,
)
from benchmark.models import AuditEvent, Verdict
from benchmark.services.judging import verdicts_store
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.calibration import calibration_set
from tests.builders.datasets import JudgeRunFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from validation.dashboard import alerts, rules, selectors
from validation.dashboard.agreement import peer_agreement_table
from validation.services import study_close, study_create, study_open

pytestmark = pytest.mark.django_db
OVERVIEW = "/admin/dashboard/"


def page(name: str) -> str:
    return f"/admin/dashboard/studies/{name}/"


def rate_round(pool, experts, *, labels_for=lambda expert, assignment: all_labels(assignment)):
    """Each expert claims one unit and submits it with the labels ``labels_for`` gives;
    returns how many did."""
    submitted = 0
    for expert in experts:
        assignment = services.assignment_claim_next(user=expert.user, pool=pool)
        if assignment is not None:
            services.assignment_submit(assignment=assignment, labels=labels_for(expert, assignment))
            submitted += 1
    return submitted


@pytest.fixture
def crowd():
    """Four experts over eight units, every unit finished by three of them. ``d`` labels every
    criterion the opposite way to the others, who label alternately hit and miss."""
    *_others, d = experts = ExpertFactory.create_batch(4)
    study = open_study(cases=8, experts=experts, name="crowd")

    def labels(expert, assignment):
        hits = all_labels(assignment)
        for index, label in enumerate(hits):
            label["hit"] = (index % 2 == 0) != (expert == d)
        return hits

    for _ in range(10):  # until no one can take anything (at most 8 units x 3 / 4 rounds)
        if not rate_round(study.pool, experts, labels_for=labels):
            break
    return study, experts


def test_peer_agreement_is_every_pair_of_labels_counted_by_hand(crowd):
    study, experts = crowd
    # The expectation, label against label: on each unit all three raters finished, every
    # label of a rater is compared with each other rater's label of the same criterion.
    units: dict[int, dict[int, dict[int, bool]]] = defaultdict(lambda: defaultdict(dict))
    expert_of, ability_of = {}, {}
    for unit_id, submission_id, expert_id, item_id, ability, hit in Label.objects.filter(
        submission__unit__pool=study.pool, submission__kind=Assignment.Kind.RATING
    ).values_list("submission__unit_id", "submission_id", "submission__expert_id",
                  "rubric_item_id", "rubric_item__ability", "hit"):  # fmt: skip
        units[unit_id][submission_id][item_id] = hit
        expert_of[submission_id], ability_of[item_id] = expert_id, ability
    expected: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])
    completed = Counter()
    for ratings in units.values():
        if len(ratings) < 3:
            continue
        for mine, own in ratings.items():
            completed[expert_of[mine]] += 1
            for theirs, other in ratings.items():
                if theirs == mine:
                    continue
                for item_id, hit in own.items():
                    cell = expected[(expert_of[mine], ability_of[item_id])]
                    cell[0] += other[item_id] == hit
                    cell[1] += 1
    assert completed and len({a for _, a in expected}) == 4  # and the crowd finished units

    def by_hand(expert):
        cells = [cell for (e, _), cell in expected.items() if e == expert.pk]
        return Agreement(agreed=sum(a for a, _ in cells), compared=sum(c for _, c in cells),
                         units=completed[expert.pk])  # fmt: skip

    figures = peer_agreement_by(pool_ids=[study.pool_id])
    for expert in experts:
        assert figures[(study.pool_id, expert.pk)] == by_hand(expert)
        assert selectors_quality.expert_peer_agreement(expert=expert) == by_hand(expert)
    assert figures[(study.pool_id, experts[3].pk)].share == 0.0
    # Split per week and ability, the same comparisons and units add up again.
    table = peer_agreement_table(pool_ids=[study.pool_id])
    assert table.roll_up() == figures
    weeks = table.roll_up(week=True)
    assert {week for (_p, _e, week) in weeks} == {rules.week_start(timezone.localdate())}
    abilities = table.roll_up(ability=True)
    assert {
        (e, ability): [a.agreed, a.compared] for (_p, e, ability), a in abilities.items() if ability
    } == expected


def test_study_page_shows_units_by_state_work_per_expert_and_per_day(crowd, admin_client):
    study, experts = crowd
    detail = selectors.study_detail(study=study)
    per_unit = Counter(
        Submission.objects.filter(unit__pool=study.pool).values_list("unit_id", flat=True)
    )
    full = sum(1 for n in per_unit.values() if n == 3)
    assert full >= 7  # the claims fill (nearly) every unit
    assert detail.progress.buckets[selectors.GOLD] == full
    assert detail.progress.buckets[selectors.PENDING] == 8 - full
    assert detail.progress.ratings_done == sum(per_unit.values())
    assert {row.expert.pk: row.submissions for row in detail.experts} == dict(
        Counter(
            Submission.objects.filter(unit__pool=study.pool).values_list("expert_id", flat=True)
        )
    )
    assert detail.per_day[-1][1] == sum(per_unit.values())  # all submitted today
    assert {a for a, _ in detail.abilities} == {"warmth", "curiosity", "emotional_coping",
                                                 "catastrophic"}  # fmt: skip
    response = admin_client.get(page(study.name))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="units-by-state"' in body and "<svg" in body and str(experts[0]) in body


def test_in_progress_and_pending_are_told_apart():
    a, b = ExpertFactory.create_batch(2)
    study = open_study(cases=3, experts=[a, b], name="fresh")
    leased = services.assignment_claim_next(user=a.user, pool=study.pool)
    progress = selectors.studies_progress(studies=[study])[0]
    assert progress.buckets[selectors.IN_PROGRESS] == 1 and progress.buckets[selectors.PENDING] == 2
    # A rated unit stays in progress with no lease on it; a lease before any rating counts too.
    services.assignment_submit(assignment=leased, labels=all_labels(leased))
    other = services.assignment_claim_next(user=a.user, pool=study.pool)
    assert other.unit_id != leased.unit_id
    progress = selectors.studies_progress(studies=[study])[0]
    assert progress.buckets[selectors.IN_PROGRESS] == 2 and progress.buckets[selectors.PENDING] == 1
    assert progress.ratings_done == 1
    # A lease that ran out and was let go holds nothing.
    Assignment.objects.filter(pk=other.pk).update(status=Assignment.Status.EXPIRED)
    progress = selectors.studies_progress(studies=[study])[0]
    assert progress.buckets[selectors.IN_PROGRESS] == 1 and progress.buckets[selectors.PENDING] == 2


def test_a_weak_expert_is_flagged_and_recalibration_holds_back_their_study_work(
    crowd, admin_client
):
    study, (a, b, c, d) = crowd
    found = alerts.alerts_collect(
        studies=[study], progress=selectors.studies_progress(studies=[study])
    )
    assert [w.expert for w in found.weak_experts] == [d]
    # Give the study a calibration set everyone passed, so study work is open to all.
    senior = ExpertFactory(tier="senior")
    calibration = calibration_set(senior=senior)
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration)
    now = timezone.now()
    for expert in (a, b, c, d):
        CalibrationAttempt.objects.create(calibration_set=calibration, expert=expert,
                                          started_at=now, finished_at=now, passed=True,
                                          agreement=1.0)  # fmt: skip
    body = admin_client.get(page(study.name)).content.decode()
    assert 'data-alert="weak-expert"' in body and "Require recalibration" in body
    response = admin_client.post(
        page(study.name) + "recalibrate/", {"expert": d.pk, "next": page(study.name)}
    )
    assert response.status_code == 302
    assert AuditEvent.objects.filter(action="calibration.require").count() == 1
    # d is sent to the calibration set; a is not (the study's units are all rated: nothing).
    pool = Pool.objects.get(pk=study.pool_id)
    assignment = services.assignment_claim_next(user=d.user, pool=pool)
    assert assignment is not None and assignment.kind == Assignment.Kind.CALIBRATION
    assert services.assignment_claim_next(user=a.user, pool=pool) is None


def test_deactivating_a_weak_expert_takes_them_off_work(crowd, admin_client):
    study, (_a, _b, _c, d) = crowd
    response = admin_client.post(page(study.name) + "deactivate/", {"expert": d.pk})
    assert response.status_code == 302
    d.refresh_from_db()
    assert not d.is_active
    assert AuditEvent.objects.filter(action="expert.deactivate", object_id=str(d.pk)).exists()
    # Gone from the alerts (nothing left to act on) and from the routing form.
    body = admin_client.get(page(study.name)).content.decode()
    assert 'data-alert="weak-expert"' not in body
    assert d not in selectors.route_choices(study=study)


def _expire_three_times(study):
    unit = study.pool.units.order_by("pk").first()
    past = timezone.now() - timedelta(hours=2)
    for expert in ExpertFactory.create_batch(3):
        study.pool.experts.add(expert)
        Assignment.objects.create(
            pool=study.pool, unit=unit, expert=expert, slot=1,
            status=Assignment.Status.EXPIRED, lease_expires_at=past,
        )  # fmt: skip
    return unit


def test_a_unit_whose_lease_keeps_expiring_is_routed_by_hand(admin_client):
    helper = ExpertFactory()
    study = open_study(cases=3, experts=[helper], name="slow")
    unit = _expire_three_times(study)
    body = admin_client.get(OVERVIEW).content.decode()
    assert f'data-unit="{unit.token}"' in body and "Route to an expert manually" in body
    form = admin_client.get(page(study.name) + f"?unit={unit.token}").content.decode()
    assert f'value="{unit.token}"' in form  # the alert's link fills the form in
    response = admin_client.post(
        page(study.name) + "route/", {"unit": unit.token, "expert": helper.pk}, follow=True
    )
    assert "routed to" in response.content.decode()
    routed = Assignment.objects.get(unit=unit, expert=helper)
    assert routed.status == Assignment.Status.LEASED and routed.slot == 1
    assert AuditEvent.objects.filter(action="assignment.route").count() == 1
    # Someone holds it now: no alert; and the expert's next claim is that unit.
    assert f'data-unit="{unit.token}"' not in admin_client.get(OVERVIEW).content.decode()
    assert services.assignment_claim_next(user=helper.user, pool=study.pool) == routed


def test_routing_respects_every_invariant():
    a, b, c, d, outsider = ExpertFactory.create_batch(5)
    study = open_study(cases=2, experts=[a, b, c, d], name="rules")
    pool = study.pool
    unit = pool.units.order_by("pk").first()
    other = pool.units.order_by("pk").last()
    admin = UserFactory(is_staff=True)
    route = lambda expert, target=unit: services_route(target, expert, admin)  # noqa: E731
    with pytest.raises(services.AnnotationError, match="not an expert of this study"):
        route(outsider)
    first = route(a)
    assert first.slot == 1
    assert first.lease_expires_at > timezone.now() + timedelta(seconds=ROUTED_LEASE_SECONDS - 60)
    with pytest.raises(services.AnnotationError, match="already rates"):
        route(a)  # never the same expert twice
    with pytest.raises(services.AnnotationError, match="another open unit"):
        route(a, other)  # one open lease per expert and study
    route(b)
    route(c)
    with pytest.raises(services.AnnotationError, match="all its raters"):
        route(d)  # three raters at most
    expert_set_active(expert=d, active=False, actor=admin)
    with pytest.raises(services.AnnotationError, match="not active"):
        route(d, other)
    services.pool_set_status(pool=pool, status=Pool.Status.CLOSED)
    with pytest.raises(services.AnnotationError, match="not open"):
        route(b, other)
    assert Assignment.objects.filter(unit=unit).count() == 3


def services_route(unit, expert, actor):
    return unit_route_to_expert(unit=unit, expert=expert, actor=actor)


def test_routing_refuses_an_expert_who_must_calibrate_first():
    a = ExpertFactory()
    study = open_study(cases=2, experts=[a], name="gated")
    services.pool_set_quality_policy(
        pool=study.pool, calibration=calibration_set(senior=ExpertFactory(tier="senior"))
    )
    with pytest.raises(services.AnnotationError, match="calibration"):
        services_route(study.pool.units.first(), a, None)


def test_a_study_that_will_miss_its_date_says_so_and_the_date_can_move(admin_client):
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=4, experts=experts, name="late")
    rate_round(study.pool, experts)  # 3 ratings this week: 3/7 a day, 9 left → 21 days
    today = timezone.localdate()
    study.due_date = today + timedelta(days=2)
    study.save(update_fields=["due_date"])
    progress = selectors.studies_progress(studies=[study])[0]
    assert progress.pace.remaining == 9 and progress.pace.finish == today + timedelta(days=21)
    body = admin_client.get(OVERVIEW).content.decode()
    assert 'data-alert="late-study"' in body and "Move the date" in body and "Add experts" in body
    # "Add experts" opens the pool's admin page where members are chosen.
    assert admin_client.get(f"/admin/annotation/pool/{study.pool_id}/change/").status_code == 200
    new_date = (today + timedelta(days=30)).isoformat()
    admin_client.post(page(study.name) + "due-date/", {"due_date": new_date})
    study.refresh_from_db()
    assert study.due_date.isoformat() == new_date
    assert AuditEvent.objects.filter(action="study.due_date").get().data["to"] == new_date
    assert 'data-alert="late-study"' not in admin_client.get(OVERVIEW).content.decode()


def test_a_judge_run_with_many_errors_is_flagged_with_a_link_to_its_errors(admin_client):
    study = open_study(cases=6, experts=ExpertFactory.create_batch(1), judge=True, name="judged")
    run = study.judge_runs.get()
    responses = list(run.model.responses.select_related("case"))
    for index, response in enumerate(responses):
        items = list(response.case.rubric.values_list("pk", flat=True))
        states = ["error" if index == 0 else "met"] * len(items)  # 4 of 24 are errors
        verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=items, states=states,
                       reasons=[""] * len(items), raw="")  # fmt: skip
    body = admin_client.get(OVERVIEW).content.decode()
    assert 'data-alert="failing-run"' in body
    link = f"/admin/benchmark/verdict/?run__id__exact={run.pk}&state__exact=error"
    assert link.replace("&", "&amp;") in body
    errors_page = admin_client.get(link)
    assert errors_page.status_code == 200
    assert errors_page.context["cl"].result_count == 4
    run_link = f"/admin/benchmark/judgerun/?id__exact={run.pk}"
    assert run_link in body
    assert admin_client.get(run_link).context["cl"].result_count == 1


def test_runs_json_follows_verdicts_as_they_are_written(admin_client, client):
    study = open_study(cases=2, experts=ExpertFactory.create_batch(1), name="live")
    run = JudgeRunFactory(model=study.models_under_test.get(), dataset=study.dataset,
                          status="running", calls=3, cost=0.25)  # fmt: skip
    before = admin_client.get("/admin/dashboard/runs.json").json()
    row = next(r for r in before["judge_runs"] if r["id"] == run.pk)
    assert (row["done"], row["total"], row["requests"], row["cost"]) == (0, 8, 3, 0.25)
    response = run.model.responses.first()
    items = list(response.case.rubric.values_list("pk", flat=True))
    verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=items,
                   states=["met", "not_met", "met", "error"], reasons=[""] * 4, raw="")  # fmt: skip
    after = admin_client.get("/admin/dashboard/runs.json").json()
    row = next(r for r in after["judge_runs"] if r["id"] == run.pk)
    assert (row["done"], row["errors"], row["progress"]) == (4, 1, 0.5)
    assert Verdict.objects.filter(run=run).count() == 4
    # Staff only, and a script gets 403 instead of a login page.
    assert client.get("/admin/dashboard/runs.json").status_code == 403
    expert = ExpertFactory()
    client.force_login(expert.user)
    assert client.get("/admin/dashboard/runs.json").status_code == 403
    page_html = admin_client.get("/admin/dashboard/runs/").content.decode()
    assert f'data-run="{run.pk}"' in page_html and "runs.json" in page_html


def test_pages_are_staff_only_and_render_in_chinese(crowd, admin_client, client):
    study, (a, *_rest) = crowd
    for url in (OVERVIEW, page(study.name), "/admin/dashboard/runs/"):
        assert admin_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").status_code == 200
        client.force_login(a.user)
        assert client.get(url).status_code == 302  # to the admin login
        assert client.post(page(study.name) + "route/", {}).status_code == 302
    assert admin_client.get(page("no-such-study")).status_code == 404


def test_the_overview_costs_the_same_queries_for_more_experts_and_studies(
    admin_client, django_assert_max_num_queries
):
    # Count once with one small rated study, then add experts, ratings and a study: no more
    # queries (each time with nothing cached, so every study's agreement is counted afresh).
    first_experts = ExpertFactory.create_batch(3)
    first = open_study(cases=2, experts=first_experts, name="s1")
    rate_round(first.pool, first_experts)
    cache.clear()
    with CaptureQueriesContext(connection) as small:
        admin_client.get(OVERVIEW)
    crowd_experts = ExpertFactory.create_batch(6)
    second = study_open(
        study=study_create(name="s2", dataset=first.dataset,
                           models=list(first.models_under_test.all()), fraction=1.0, seed=1,
                           experts=crowd_experts)
    )  # fmt: skip
    for _ in range(3):
        rate_round(second.pool, crowd_experts)
    cache.clear()
    with django_assert_max_num_queries(len(small.captured_queries)):
        admin_client.get(OVERVIEW)


def test_agreement_follows_new_submissions_cached_or_recorded():
    experts = ExpertFactory.create_batch(4)
    study = open_study(cases=3, experts=experts, name="cached")
    rate_round(study.pool, experts)
    rate_round(study.pool, experts)  # 8 of 9 ratings: two units complete
    before = peer_agreement_by(pool_ids=[study.pool_id])
    assert sum(a.units for a in before.values()) == 6
    table = peer_agreement_table(pool_ids=[study.pool_id])  # cached from here on
    assert table.roll_up() == before
    assert peer_agreement_table(pool_ids=[study.pool_id]) == table

    def misses(expert, assignment):
        return all_labels(assignment, hit=False)

    while rate_round(study.pool, experts, labels_for=misses):
        pass
    after = peer_agreement_by(pool_ids=[study.pool_id])
    assert after != before
    assert sum(a.units for a in after.values()) == 9
    assert peer_agreement_table(pool_ids=[study.pool_id]).roll_up() == after
    for expert in experts:
        assert after[(study.pool_id, expert.pk)] == selectors_quality.expert_peer_agreement(
            expert=expert
        )


def test_agreement_rows_are_recorded_when_a_unit_completes_and_backfilled_alike(admin_client):
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts, name="rows")  # one unit
    first = services.assignment_claim_next(user=experts[0].user, pool=study.pool)
    services.assignment_submit(assignment=first, labels=all_labels(first))
    second = services.assignment_claim_next(user=experts[1].user, pool=study.pool)
    services.assignment_submit(assignment=second, labels=all_labels(second, hit=False))
    assert not PeerAgreement.objects.exists()  # two of three raters: not complete yet
    third = services.assignment_claim_next(user=experts[2].user, pool=study.pool)
    services.assignment_submit(assignment=third, labels=all_labels(third))
    recorded = {
        row.expert_id: (row.agreed, row.compared, row.pool_id)
        for row in PeerAgreement.objects.all()
    }
    criteria = len(all_labels(first))
    assert recorded == {
        experts[0].pk: (criteria, 2 * criteria, study.pool_id),  # agrees with the third
        experts[1].pk: (0, 2 * criteria, study.pool_id),
        experts[2].pk: (criteria, 2 * criteria, study.pool_id),
    }
    listed = admin_client.get("/admin/annotation/peeragreement/")
    assert listed.status_code == 200 and listed.context["cl"].result_count == 3
    # A unit rated by two of three has no rows, and none are made for it by the backfill.
    short = study_open(
        study=study_create(name="rows-short", dataset=study.dataset,
                           models=list(study.models_under_test.all()), fraction=1.0, seed=1,
                           experts=experts)
    )  # fmt: skip
    rate_round(short.pool, experts[:2])
    PeerAgreement.objects.all().delete()
    assert peer_agreements_backfill() == 3
    assert peer_agreements_backfill() == 3  # again: found, not doubled
    assert {
        row.expert_id: (row.agreed, row.compared, row.pool_id)
        for row in PeerAgreement.objects.all()
    } == recorded


def test_a_closed_study_shows_its_short_units_waiting_for_a_senior_and_no_pace():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=3, experts=experts, name="closing")
    study.due_date = timezone.localdate() + timedelta(days=1)
    study.save(update_fields=["due_date"])
    while rate_round(study.pool, experts[:2]):
        pass  # two raters only: no unit can be finished
    study_close(study=study)
    study.pool.refresh_from_db()
    progress = selectors.studies_progress(studies=[study])[0]
    assert progress.buckets[selectors.WAITING_SENIOR] == 3
    assert progress.buckets[selectors.PENDING] == progress.buckets[selectors.IN_PROGRESS] == 0
    assert progress.pace.remaining == 0 and not progress.pace.will_miss
