"""A pool's record of its units (first and last id, count), written with them, and its tally
of complete units, counted as their last ratings arrive; migration 0007 writes both for the
pools that were there before."""

import pytest
from django.db import connection
from django.db.models import Max, Min, Sum

from annotation import services
from annotation.models import Pool, PoolTally, Unit
from annotation.selectors import work as selectors_work
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set
from tests.builders.labels import all_labels
from tests.builders.migrations import migrate
from tests.builders.studies import open_study


def record(pool: Pool) -> tuple:
    # Only the record's columns: the tests migrate back to before the pool's later ones.
    columns = ("unit_id_first", "unit_id_last", "units_total")
    return Pool.objects.filter(pk=pool.pk).values_list(*columns).get()


def tally_of(pool: Pool) -> int:
    return PoolTally.objects.filter(pool=pool).aggregate(n=Sum("units_complete"))["n"] or 0


def made(pool: Pool) -> tuple:
    units = Unit.objects.filter(pool=pool)
    ends = units.aggregate(first=Min("pk"), last=Max("pk"))
    return ends["first"], ends["last"], units.count()


@pytest.mark.django_db
def test_a_study_and_a_calibration_set_record_their_units_as_they_make_them():
    study = open_study(cases=5, experts=ExpertFactory.create_batch(1))
    calibration = calibration_set(senior=ExpertFactory(tier="senior"), units=3)
    assert record(study.pool) == made(study.pool) and study.pool.units_total == 5
    assert record(calibration.pool) == made(calibration.pool)
    assert calibration.pool.units_total == 3


@pytest.mark.django_db
def test_the_tally_counts_each_unit_once_when_its_last_rating_arrives():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=2, experts=experts, lease_minutes=60)
    assert not PoolTally.objects.filter(pool=study.pool).exists()
    for round_, expert in enumerate(experts * 2):
        assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
        complete = Unit.objects.filter(pool=study.pool, ratings_complete=True).count()
        assert tally_of(study.pool) == complete, round_
    assert complete == 2
    # The pool as read before the migrations: its later columns are not there at 0008.
    progress = selectors_work.study_progress(expert=experts[0], pool=study.pool)
    assert (progress.team_complete, progress.team_total) == (2, 2)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_after")
def test_the_migration_records_the_units_of_the_pools_there_before():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=3, experts=experts, lease_minutes=60)
    empty = services.pool_create(
        name="empty",
        responses=[],
        experts=[],
        raters_per_unit=3,
        lease_seconds=600,
        show_ability=False,
    )
    for expert in experts * 3:  # the three units get their three ratings
        assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    expected = made(study.pool)
    Pool.objects.update(unit_id_first=None, unit_id_last=None, units_total=0)

    migrate([("annotation", "0006_pool_leases_swept_at")])
    migrate([("annotation", "0007_pool_units_tally")])

    assert record(study.pool) == expected
    assert record(empty) == (None, None, 0)
    assert list(PoolTally.objects.values_list("pool", "units_complete")) == [(study.pool.pk, 3)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_after")
def test_the_tally_keeps_its_count_through_the_shards_migration_both_ways():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=3, experts=experts, lease_minutes=60)
    for expert in experts * 3:
        assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    # Three units of consecutive ids: counted in three shards.
    assert PoolTally.objects.filter(pool=study.pool).count() == 3
    assert tally_of(study.pool) == 3

    migrate([("annotation", "0007_pool_units_tally")])
    with connection.cursor() as cursor:
        cursor.execute("SELECT pool_id, units_complete FROM annotation_pooltally")
        assert cursor.fetchall() == [(study.pool.pk, 3)]

    migrate([("annotation", "0008_pool_tally_shards")])
    rows = PoolTally.objects.values_list("pool", "shard", "units_complete")
    assert list(rows) == [(study.pool.pk, 0, 3)]
    # The pool as read before the migrations: its later columns are not there at 0008.
    progress = selectors_work.study_progress(expert=experts[0], pool=study.pool)
    assert (progress.team_complete, progress.team_total) == (3, 3)
