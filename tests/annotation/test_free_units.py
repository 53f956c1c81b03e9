"""The hand-written SQL of the claim's window and the progress line's count
(``annotation.selectors.free_units``), on SQLite and PostgreSQL alike."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.assignment import HardCases
from annotation.models import Assignment
from annotation.selectors.free_units import free_units_count, free_units_window
from tests.annotation.factories import ExpertFactory
from tests.validation.factories import open_study

pytestmark = pytest.mark.django_db


def window(pool, expert, *, start=0.0, size=64, hard=HardCases.ANY, now=None):
    return free_units_window(
        pool=pool, expert=expert, now=now or timezone.now(), hard=hard, start=start, size=size
    )


def test_the_window_starts_at_its_point_and_wraps_around():
    expert = ExpertFactory()
    pool = open_study(cases=6, experts=[expert]).pool
    ids = sorted(pool.units.values_list("pk", flat=True))
    assert ids == list(range(ids[0], ids[0] + 6))  # one bulk insert: a dense id range
    # The point is first id + ⌊6 × 0.5⌋: the fourth unit, then the wrap from the first.
    assert window(pool, expert, start=0.5, size=4) == [
        (ids[3], 0),
        (ids[4], 0),
        (ids[5], 0),
        (ids[0], 0),
    ]
    assert window(pool, expert, start=0.0, size=2) == [(ids[0], 0), (ids[1], 0)]
    assert free_units_count(pool=pool, expert=expert, now=timezone.now(), hard=HardCases.ANY) == 6


def test_live_slots_count_a_run_out_lease_reads_free_and_own_or_complete_units_drop_out():
    mine = ExpertFactory()
    pool = open_study(cases=5, experts=[mine]).pool
    u = sorted(pool.units.all(), key=lambda unit: unit.pk)
    now = timezone.now()

    def hold(unit, slot, *, expert=None, status="leased", expires=now + timedelta(minutes=5)):
        Assignment.objects.create(
            pool=pool,
            unit=unit,
            expert=expert or ExpertFactory(),  # one open lease per expert and pool
            slot=slot,
            status=status,
            lease_expires_at=expires,
        )

    hold(u[0], 1)
    hold(u[0], 2, status="submitted")
    hold(u[1], 1, expires=now - timedelta(seconds=1))  # run out, not yet swept
    hold(u[2], 1, expert=mine, status="submitted")
    hold(u[3], 1, status="expired")
    u[4].ratings_complete = True
    u[4].save(update_fields=["ratings_complete"])
    assert window(pool, mine, now=now) == [(u[0].pk, 2), (u[1].pk, 0), (u[3].pk, 0)]
    # Full for the pool's raters: a third live slot takes u[0] out.
    hold(u[0], 3)
    assert window(pool, mine, now=now) == [(u[1].pk, 0), (u[3].pk, 0)]
    assert free_units_count(pool=pool, expert=mine, now=now, hard=HardCases.ANY) == 2


def test_hard_cases_are_left_out_for_an_unproven_expert_and_come_first_for_a_proven_one():
    expert = ExpertFactory()
    pool = open_study(cases=6, experts=[expert]).pool
    hard = set(pool.units.filter(response__case__difficulty="hard").values_list("pk", flat=True))
    assert 0 < len(hard) < 6
    unproven = {pk for pk, _ in window(pool, expert, hard=HardCases.NONE)}
    assert unproven == set(pool.units.values_list("pk", flat=True)) - hard
    first = {pk for pk, _ in window(pool, expert, hard=HardCases.FIRST)}
    assert first == hard  # the best tier holding any unit gives the whole window
    now = timezone.now()
    assert free_units_count(pool=pool, expert=expert, now=now, hard=HardCases.NONE) == 6 - len(hard)
