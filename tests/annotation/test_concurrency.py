"""30 experts claim and submit in parallel threads over a 100-unit study on PostgreSQL."""

import threading
import time
from collections import Counter

import pytest
from django.db import connection, connections

from annotation import services
from annotation.models import Assignment, Submission, Unit
from tests.builders.accounts import ExpertFactory
from tests.builders.concurrency import hold_open
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from validation.models import StudyUnit

EXPERTS = 30
UNITS = 100


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_thirty_experts_in_parallel_rate_every_unit_exactly_three_times(on_postgres):
    experts = ExpertFactory.create_batch(EXPERTS)
    study = open_study(cases=UNITS, experts=experts, lease_minutes=60)
    errors: list[BaseException] = []
    busy = Counter()
    start = threading.Barrier(EXPERTS)

    def work(expert) -> None:
        try:
            start.wait()
            while True:
                try:
                    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
                except services.PoolBusy:
                    busy[expert.pk] += 1
                    time.sleep(0.05)
                    continue
                if assignment is None:
                    return
                services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    began = time.perf_counter()
    threads = [threading.Thread(target=work, args=(e,)) for e in experts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    elapsed = time.perf_counter() - began
    assert not errors, errors[:3]
    assert connection.vendor == "postgresql"

    per_unit = Counter(Submission.objects.filter(kind="rating").values_list("unit_id", flat=True))
    assert len(per_unit) == UNITS, "some unit lost"
    assert set(per_unit.values()) == {3}, "some unit got more or fewer than three"
    pairs = list(Submission.objects.values_list("unit_id", "expert_id"))
    assert len(pairs) == len(set(pairs)) == 3 * UNITS, "an expert rated a unit twice"
    slots = list(Submission.objects.values_list("unit_id", "slot"))
    assert len(set(slots)) == 3 * UNITS
    assert not Assignment.objects.filter(status="leased").exists()
    # The golden standard exists for every unit once its third submission is in.
    assert StudyUnit.objects.filter(study=study, state="gold").count() == UNITS
    print(
        f"\n{EXPERTS} experts × {UNITS} units: {3 * UNITS} submissions in {elapsed:.1f}s, "
        f"{sum(busy.values())} busy retries, "
        f"load per expert min/max {min(Counter(e for _, e in pairs).values())}/"
        f"{max(Counter(e for _, e in pairs).values())}"
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_claim_takes_a_slot_of_a_unit_another_transaction_holds_locked(on_postgres):
    """A claim locks no unit: a unit row another request holds under its lock (a submit
    counting its ratings, a router) still gives a claim its free slot, while that lock is
    held."""
    first, second = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=[first, second], lease_minutes=60)
    unit = study.pool.units.get()
    locked, release = threading.Event(), threading.Event()
    holder = hold_open(
        lambda: Unit.objects.select_for_update(no_key=True).get(pk=unit.pk), locked, release
    )
    assert locked.wait(10)
    try:
        assignment = services.assignment_claim_next(user=first.user, pool=study.pool)
        assert holder.is_alive(), "the claim waited until the holder gave the lock up"
    finally:
        release.set()
        holder.join(10)
    assert assignment is not None and assignment.unit_id == unit.pk and assignment.slot == 1
    assert services.assignment_claim_next(user=second.user, pool=study.pool).slot == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_claim_racing_an_uncommitted_claim_of_the_same_slot_takes_the_next_one(on_postgres):
    """Two experts claim the same unit's first slot, the first in a transaction still open:
    the second's insert waits for it on the slot's unique index, gets nothing back when it
    commits, and takes the next slot of the same unit on its next round; neither fails."""
    first, second = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=[first, second], lease_minutes=60)
    held: list[Assignment] = []
    claimed, finish = threading.Event(), threading.Event()
    holder = hold_open(
        lambda: held.append(services.assignment_claim_next(user=first.user, pool=study.pool)),
        claimed,
        finish,
    )
    assert claimed.wait(10)
    threading.Timer(0.5, finish.set).start()
    mine = services.assignment_claim_next(user=second.user, pool=study.pool)
    holder.join(10)
    assert (held[0].unit_id, held[0].slot) == (mine.unit_id, 1)
    assert mine.slot == 2
    assert Assignment.objects.filter(status="leased").count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_last_ratings_committing_together_still_complete_the_unit(on_postgres):
    """The second rating's transaction is still open when the third is submitted: the third
    waits for it, counts three, and the unit gets its gold (neither saw the unit complete
    when each counted only its own uncommitted rating)."""
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts, lease_minutes=60)
    first, second, third = (
        services.assignment_claim_next(user=e.user, pool=study.pool) for e in experts
    )
    services.assignment_submit(assignment=first, labels=all_labels(first))
    submitted, commit, third_in = threading.Event(), threading.Event(), threading.Event()
    holder = hold_open(
        lambda: services.assignment_submit(assignment=second, labels=all_labels(second)),
        submitted,
        commit,
    )
    assert submitted.wait(10)
    last = hold_open(
        lambda: services.assignment_submit(assignment=third, labels=all_labels(third)),
        third_in,
        third_in,  # nothing to hold: commit as soon as it is in
    )
    time.sleep(0.5)  # the third submit is in, waiting or (on the old code) already counted
    commit.set()
    holder.join(10)
    last.join(10)
    assert Submission.objects.filter(kind="rating").count() == 3
    assert StudyUnit.objects.get(study=study).state == "gold"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_row_locks_of_an_experts_work_lock_their_own_table_only(on_postgres):
    """FOR UPDATE on a query that joins locks every joined row unless it names its own table
    (OF). Claims, autosaves, renewals and submits locking the pool's row that way made every
    expert of a study wait for every other; each lock they take now says OF, or joins nothing."""
    from django.test.utils import CaptureQueriesContext

    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=2, experts=experts, lease_minutes=60)
    with CaptureQueriesContext(connection) as queries:
        for expert in experts:
            assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
            services.assignment_autosave(assignment=assignment, labels=all_labels(assignment)[:1])
            services.assignment_renew(assignment=assignment)
            services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    locks = [q["sql"] for q in queries.captured_queries if " FOR " in q["sql"]]
    # Nothing here locks with a SELECT on the usual path: a claim's insert is checked by the
    # constraints; autosave and renewal extend a lease still out, and the submit closes its
    # assignment and counts its unit's rating, each with one UPDATE, which locks that row alone.
    updates = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(updates) >= 4 * len(experts)
    assert not [sql for sql in updates if " JOIN " in sql]
    joined = [sql for sql in locks if " JOIN " in sql and " OF " not in sql]
    assert not joined, joined[:2]
