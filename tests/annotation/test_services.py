from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation import services
from annotation.assignment import HardCases
from annotation.labels import InvalidLabels
from annotation.models import Assignment, Pool, Submission
from annotation.selectors import work as selectors_work
from annotation.services import claims
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from validation.models import GoldLabel, StudyUnit

pytestmark = pytest.mark.django_db


def claim(expert, study, **kwargs):
    return services.assignment_claim_next(user=expert.user, pool=study.pool, **kwargs)


def test_each_unit_gets_exactly_three_different_experts_then_nothing_is_left():
    experts = ExpertFactory.create_batch(5)
    study = open_study(cases=4, experts=experts)
    rated: dict[int, list[int]] = {}
    for _ in range(10):
        for expert in experts:
            assignment = claim(expert, study)
            if assignment is None:
                continue
            services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
            rated.setdefault(assignment.unit_id, []).append(expert.pk)
            assignment.unit.refresh_from_db()
            # The last rating marks the unit complete, and only the last.
            assert assignment.unit.ratings_complete == (len(rated[assignment.unit_id]) == 3)
    assert len(rated) == 4
    for raters in rated.values():
        assert len(raters) == 3 and len(set(raters)) == 3
    assert all(claim(e, study) is None for e in experts)
    assert Submission.objects.count() == 12


def test_an_open_lease_is_handed_back_not_a_second_unit():
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert])
    first = claim(expert, study)
    again = claim(expert, study)
    assert again.pk == first.pk
    assert Assignment.objects.filter(expert=expert).count() == 1


def test_database_refuses_a_fourth_slot_and_a_second_rating_by_the_same_expert():
    experts = ExpertFactory.create_batch(4)
    study = open_study(cases=1, experts=experts)
    unit = study.pool.units.get()
    lease = timezone.now() + timedelta(minutes=5)
    for slot, expert in enumerate(experts[:3], start=1):
        Assignment.objects.create(
            pool=study.pool, unit=unit, expert=expert, slot=slot, lease_expires_at=lease
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            pool=study.pool, unit=unit, expert=experts[3], slot=4, lease_expires_at=lease
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            pool=study.pool, unit=unit, expert=experts[3], slot=2, lease_expires_at=lease
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            pool=study.pool,
            unit=unit,
            expert=experts[0],
            slot=3,
            lease_expires_at=lease,
            status="submitted",
        )


def test_expired_lease_goes_back_to_the_pool_with_an_audit_row_and_the_late_submit_is_refused():
    slow, quick = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=[slow, quick], raters_per_unit=3)
    lost = claim(slow, study)
    later = timezone.now() + timedelta(seconds=study.pool.lease_seconds + 1)
    # Fill every slot after the lease ran out, so the slow expert's slot is really gone.
    others = ExpertFactory.create_batch(2)
    study.pool.experts.add(*others)
    taken = [claim(e, study, now=later) for e in (quick, *others)]
    assert all(a is not None for a in taken)
    lost.refresh_from_db()
    assert lost.status == Assignment.Status.EXPIRED
    assert AuditEvent.objects.filter(
        action="assignment.lease_expired", object_id=str(lost.pk)
    ).exists()
    with pytest.raises(services.LeaseLost):
        services.assignment_submit(assignment=lost, labels=all_labels(lost))
    assert not Submission.objects.filter(assignment=lost).exists()


def test_expired_lease_whose_slot_is_still_free_can_still_be_submitted():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    assignment = claim(expert, study)
    services.leases_expire(now=timezone.now() + timedelta(days=1))
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.EXPIRED
    submission, created = services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment)
    )
    assert created and submission.slot == assignment.slot


def test_submit_is_idempotent_and_a_different_resubmission_is_refused():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    assignment = claim(expert, study)
    labels = all_labels(assignment)
    first, created = services.assignment_submit(assignment=assignment, labels=labels)
    again, created_again = services.assignment_submit(assignment=assignment, labels=labels)
    assert created and not created_again and again.pk == first.pk
    with pytest.raises(services.SubmissionConflict):
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment, hit=False))
    assert first.labels.filter(hit=True).count() == len(labels)
    assert AuditEvent.objects.filter(action="rating.submit").count() == 1


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda labels: labels[:-1], "criteria have no label"),
        (lambda labels: [*labels, labels[0]], "labelled twice"),
        (lambda labels: [{**labels[0], "criterion": "nope"}, *labels[1:]], "not a criterion"),
        (lambda labels: [{**labels[0], "hit": "yes"}, *labels[1:]], "hit must be true or false"),
        (lambda labels: [{**labels[0], "points": 3}, *labels[1:]], "unknown field"),
    ],
)
def test_bad_labels_are_refused_with_a_reason_and_nothing_is_written(mutate, message):
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    assignment = claim(expert, study)
    with pytest.raises(InvalidLabels, match=message):
        services.assignment_submit(assignment=assignment, labels=mutate(all_labels(assignment)))
    assert not Submission.objects.exists()


def test_third_submission_creates_the_golden_standard(django_capture_on_commit_callbacks):
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts)
    votes = [True, True, False]
    for expert, hit in zip(experts, votes, strict=True):
        assignment = claim(expert, study)
        with django_capture_on_commit_callbacks(execute=True):
            services.assignment_submit(
                assignment=assignment, labels=all_labels(assignment, hit=hit)
            )
    unit = StudyUnit.objects.get(study=study)
    assert unit.state == StudyUnit.State.GOLD
    gold = GoldLabel.objects.filter(study_unit=unit)
    assert gold.count() == 4
    assert {(g.hit, g.provenance) for g in gold} == {(True, "2/1")}


def test_admin_reassigns_an_open_unit_to_another_expert_with_an_audit_row():
    first, second = ExpertFactory.create_batch(2)
    admin = ExpertFactory().user
    study = open_study(cases=1, experts=[first, second])
    assignment = claim(first, study)
    new = services.assignment_reassign(assignment=assignment, to_expert=second, actor=admin)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RELEASED
    assert new.expert == second and new.slot == assignment.slot
    assert AuditEvent.objects.filter(action="assignment.reassign", actor=admin).count() == 1
    with pytest.raises(services.LeaseLost):
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))


def test_daily_capacity_stops_handing_out_units():
    expert = ExpertFactory(daily_capacity=1)
    study = open_study(cases=3, experts=[expert])
    assignment = claim(expert, study)
    services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    assert claim(expert, study) is None


def test_a_window_smaller_than_the_pool_still_reaches_every_unit(monkeypatch):
    monkeypatch.setattr(selectors_work, "CANDIDATE_WINDOW", 2)
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=7, experts=experts)
    for expert in experts:
        while (assignment := claim(expert, study)) is not None:
            services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    assert Submission.objects.count() == 7 * 3
    assert study.pool.units.filter(ratings_complete=False).count() == 0


def test_a_window_smaller_than_the_pool_still_gives_specialists_their_units_first(monkeypatch):
    # The preference tiers are walked in SQL, whatever the window happens to hold.
    monkeypatch.setattr(selectors_work, "CANDIDATE_WINDOW", 2)
    specialist = ExpertFactory(specialties=["亲密关系"])
    other = open_study(cases=9, experts=[specialist])
    for _ in range(4):  # cases 1, 3, 5, 7 are 亲密关系; then the others
        assignment = claim(specialist, other)
        assert assignment.unit.response.case.primary_scene == "亲密关系"
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    assert claim(specialist, other).unit.response.case.primary_scene == "职场心理"


def test_the_window_reads_from_its_pivot_on_and_wraps_to_the_pools_start(monkeypatch):
    monkeypatch.setattr(selectors_work, "CANDIDATE_WINDOW", 3)
    expert = ExpertFactory()
    study = open_study(cases=5, experts=[expert])
    ids = list(study.pool.units.order_by("pk").values_list("pk", flat=True))
    window = selectors_work.rating_candidates(
        pool=study.pool, expert=expert, hard=HardCases.ANY, now=timezone.now(), pivot=ids[3]
    )
    assert [candidate.unit_id for candidate in window] == [ids[3], ids[4], ids[0]]


def test_the_pivot_is_drawn_inside_the_pools_ids_only_past_one_window():
    span = selectors_work.CANDIDATE_WINDOW

    def pivot(first, last):
        return selectors_work.window_pivot(pool=Pool(unit_id_first=first, unit_id_last=last))

    assert pivot(10, 10 + span - 1) is None
    assert pivot(None, None) is None
    pivots = {pivot(10, 10 + span) for _ in range(500)}
    assert pivots <= set(range(10, 10 + span + 1)) and len(pivots) > 1


def test_specialists_get_matching_units_first():
    expert = ExpertFactory(specialties=["亲密关系"])
    study = open_study(cases=6, experts=[expert])
    assignment = claim(expert, study)
    assert assignment.unit.response.case.primary_scene == "亲密关系"


def test_a_claim_that_lost_to_the_experts_other_tab_hands_that_tabs_unit_back():
    """The study was read (no lease held) before the expert's other tab claimed: every
    insert is refused by the one-open-lease constraint, and the claim returns the unit the
    other tab holds instead of a second one or a "busy"."""
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert])
    now = timezone.now()
    read_before = selectors_work.pool_for_claim_by_id(expert=expert, pool_id=study.pool.pk, now=now)
    assert read_before.held_lease is None
    other_tab = claim(expert, study)
    again = claims._claim(expert=expert, pool=read_before, now=now)
    assert again.assignment == other_tab
    assert Assignment.objects.filter(expert=expert, status=Assignment.Status.LEASED).count() == 1


def test_run_out_leases_are_swept_by_the_first_claim_of_each_minute_only():
    """The first claim in a pool marks its run-out leases expired and records when; the
    claims of the next minute leave that to the window, and the first one after it sweeps."""
    a, b, c, d, e = ExpertFactory.create_batch(5)
    study = open_study(cases=6, experts=[a, b, c, d, e], lease_minutes=1)
    t0 = timezone.now()

    def at(seconds: int):
        return t0 + timedelta(seconds=seconds)

    def swept_at():
        study.pool.refresh_from_db()
        return study.pool.leases_swept_at

    claim(a, study, now=at(0))
    assert swept_at() == at(0)
    run_out = claim(b, study, now=at(10))  # leased until 70 s
    claim(c, study, now=at(60))
    assert swept_at() == at(60)
    claim(d, study, now=at(80))  # b's lease ran out at 70 s; the last sweep was at 60 s
    run_out.refresh_from_db()
    assert (run_out.status, swept_at()) == (Assignment.Status.LEASED, at(60))
    claim(e, study, now=at(120))
    run_out.refresh_from_db()
    assert (run_out.status, swept_at()) == (Assignment.Status.EXPIRED, at(120))


def test_a_run_out_lease_not_yet_swept_gives_its_slot_to_the_next_claim(monkeypatch):
    """The window reads a run-out lease as free while its row still holds the slot: the
    claim's insert is refused there, the round's sweep marks it expired, and the next round
    takes that slot."""
    monkeypatch.setattr(claims, "_sweep_now_and_then", lambda **kwargs: None)
    slow, *others = ExpertFactory.create_batch(4)
    study = open_study(cases=1, experts=[slow, *others], raters_per_unit=3)
    lost = claim(slow, study)
    later = timezone.now() + timedelta(seconds=study.pool.lease_seconds + 1)
    taken = [claim(e, study, now=later) for e in others]
    assert sorted(a.slot for a in taken) == [1, 2, 3]
    lost.refresh_from_db()
    assert lost.status == Assignment.Status.EXPIRED
