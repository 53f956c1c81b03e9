"""The autosave and the submit on one assignment (issue 16): the draft lives on the assignment,
written with the lease in one conditional UPDATE; the submit clears it and counts the unit's
rating on the unit's counter. No draft is written after its submission, a lease that ran out
is won back, and the counter stays the number of rating submissions."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from annotation import services
from annotation.models import Assignment, Submission, Unit
from annotation.services.submissions import unit_lock_count_ratings
from tests.builders.accounts import ExpertFactory
from tests.builders.concurrency import hold_open
from tests.builders.labels import all_labels
from tests.builders.studies import open_study


def claimed(experts=1, cases=1):
    team = ExpertFactory.create_batch(experts)
    study = open_study(cases=cases, experts=team, lease_minutes=60)
    return [services.assignment_claim_next(user=e.user, pool=study.pool) for e in team]


def fresh(assignment: Assignment) -> Assignment:
    return Assignment.objects.get(pk=assignment.pk)


@pytest.mark.django_db
def test_an_autosave_after_the_submit_is_refused_and_writes_nothing():
    (assignment,) = claimed()
    services.assignment_autosave(
        assignment=assignment, labels=all_labels(assignment)[:1], active_seconds=7
    )
    saved = fresh(assignment)
    assert len(saved.draft_labels) == 1 and saved.draft_active_seconds == 7
    services.assignment_submit(assignment=fresh(assignment), labels=all_labels(assignment))
    submitted = fresh(assignment)
    assert submitted.draft_labels == {} and submitted.draft_saved_at is None
    with pytest.raises(services.AnnotationError, match="already submitted"):
        services.assignment_autosave(assignment=assignment, labels=all_labels(assignment)[:2])
    after = fresh(assignment)
    assert after.draft_labels == {} and after.lease_expires_at == submitted.lease_expires_at


@pytest.mark.django_db
def test_a_bad_label_writes_no_draft_and_keeps_the_one_saved():
    (assignment,) = claimed()
    services.assignment_autosave(assignment=assignment, labels=all_labels(assignment)[:1])
    kept = fresh(assignment)
    with pytest.raises(services.InvalidLabels):
        services.assignment_autosave(
            assignment=assignment, labels=[{"criterion": "nope", "hit": True}]
        )
    assert fresh(assignment).draft_labels == kept.draft_labels
    assert fresh(assignment).lease_expires_at == kept.lease_expires_at


@pytest.mark.django_db
def test_an_expired_lease_is_won_back_by_the_autosave_and_by_the_submit():
    (assignment,) = claimed()
    Assignment.objects.filter(pk=assignment.pk).update(
        status=Assignment.Status.EXPIRED, lease_expires_at=timezone.now() - timedelta(minutes=1)
    )
    services.assignment_autosave(assignment=fresh(assignment), labels=all_labels(assignment)[:1])
    back = fresh(assignment)
    assert back.status == "leased" and back.lease_expires_at > timezone.now()
    assert len(back.draft_labels) == 1
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.EXPIRED)
    _, created = services.assignment_submit(
        assignment=fresh(assignment), labels=all_labels(assignment)
    )
    assert created and fresh(assignment).status == "submitted"
    assert fresh(assignment).draft_labels == {}
    assert Unit.objects.get(pk=assignment.unit_id).ratings == 1


@pytest.mark.django_db
def test_a_released_assignment_takes_neither_a_draft_nor_a_submission():
    (assignment,) = claimed()
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.RELEASED)
    with pytest.raises(services.LeaseLost):
        services.assignment_autosave(
            assignment=fresh(assignment), labels=all_labels(assignment)[:1]
        )
    with pytest.raises(services.LeaseLost):
        services.assignment_submit(assignment=fresh(assignment), labels=all_labels(assignment))
    assert fresh(assignment).draft_saved_at is None and not Submission.objects.exists()
    assert Unit.objects.get(pk=assignment.unit_id).ratings == 0


@pytest.mark.django_db
def test_a_repeated_submit_is_answered_once_and_counted_once():
    (assignment,) = claimed()
    first, created = services.assignment_submit(
        assignment=fresh(assignment), labels=all_labels(assignment)
    )
    again, created_again = services.assignment_submit(
        assignment=fresh(assignment), labels=all_labels(assignment)
    )
    assert created and not created_again and again.pk == first.pk
    with pytest.raises(services.SubmissionConflict):
        services.assignment_submit(
            assignment=fresh(assignment), labels=all_labels(assignment, hit=False)
        )
    assert Unit.objects.get(pk=assignment.unit_id).ratings == 1
    assert Submission.objects.count() == 1


@pytest.mark.django_db
def test_the_counter_completes_the_unit_with_its_third_rating_and_a_revision_reads_it():
    assignments = claimed(experts=3)
    unit_id = assignments[0].unit_id
    assert {a.unit_id for a in assignments} == {unit_id}
    for n, assignment in enumerate(assignments, start=1):
        services.assignment_submit(assignment=fresh(assignment), labels=all_labels(assignment))
        unit = Unit.objects.get(pk=unit_id)
        assert (unit.ratings, unit.ratings_complete) == (n, n == 3)
        assert unit_lock_count_ratings(unit_id=unit_id) == n
    with pytest.raises(services.AnnotationError, match="can no longer be revised"):
        services.submission_revise(
            user=assignments[0].expert.user,
            assignment=fresh(assignments[0]),
            labels=all_labels(assignments[0], hit=False),
        )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_autosave_behind_an_open_submit_waits_and_writes_no_draft(on_postgres):
    """The submit has closed the assignment but not committed when the autosave comes in: the
    autosave's UPDATE waits for the submit's row lock, then finds the assignment submitted and
    is refused; the submission's cleared draft stays cleared."""
    (assignment,) = claimed()
    services.assignment_autosave(assignment=fresh(assignment), labels=all_labels(assignment)[:1])
    submitted, commit = threading.Event(), threading.Event()
    holder = hold_open(
        lambda: services.assignment_submit(
            assignment=fresh(assignment), labels=all_labels(assignment)
        ),
        submitted,
        commit,
    )
    assert submitted.wait(10)
    refused: list[Exception] = []

    def autosave() -> None:
        try:
            services.assignment_autosave(
                assignment=fresh(assignment), labels=all_labels(assignment)[:2]
            )
        except services.AnnotationError as exc:
            refused.append(exc)
        finally:
            connections.close_all()

    saver = threading.Thread(target=autosave)
    saver.start()
    time.sleep(0.5)
    assert saver.is_alive(), "the autosave did not wait for the open submit"
    commit.set()
    holder.join(10)
    saver.join(10)
    assert [str(e) for e in refused] == ["this assignment is already submitted"]
    after = fresh(assignment)
    assert after.status == "submitted" and after.draft_labels == {}
    assert after.draft_saved_at is None
