"""``rows_insert`` stores what ``bulk_create`` stores, and ``row_update`` changes what the
queryset's ``update`` changes, on SQLite and PostgreSQL."""

from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, PoolTally
from annotation.services import rows_insert
from annotation.services.inserts import row_update
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db

COLUMNS = ("actor_id", "action", "object_type", "object_id", "data", "at")


def stored(events) -> list[tuple]:
    return [tuple(getattr(e, f) for f in COLUMNS) for e in events.order_by("object_id")]


def test_rows_are_stored_as_bulk_create_stores_them():
    user = UserFactory()
    at = datetime(2026, 11, 28, 20, 15, 30, 123456, tzinfo=UTC)
    values = [
        (user.pk, "rating.submit", "submission", "1", {"labels": [1, 2], "note": "引号\"'"}, at),
        (None, "study.open", "study", "2", {}, at),
        (user.pk, "", "unit", "3", {"nested": {"none": None, "ok": True}}, at),
    ]
    with CaptureQueriesContext(connection) as queries:
        assert rows_insert(AuditEvent, COLUMNS, values) == 3
    assert len(queries) == 1
    AuditEvent.objects.bulk_create(
        AuditEvent(**dict(zip(COLUMNS, (*row[:3], "b" + row[3], *row[4:]), strict=True)))
        for row in values
    )
    ours = stored(AuditEvent.objects.exclude(object_id__startswith="b"))
    theirs = stored(AuditEvent.objects.filter(object_id__startswith="b"))
    # bulk_create's auto_now_add sets its own time: compare everything else.
    assert [row[:3] + row[4:5] for row in ours] == [row[:3] + row[4:5] for row in theirs]
    assert [row[:5] for row in ours] == [row[:5] for row in values]
    assert {row[5] for row in ours} == {at}


def test_more_rows_than_one_statement_takes_on_sqlite_are_all_stored():
    at = datetime(2026, 11, 28, tzinfo=UTC)
    values = [(None, "a", "t", f"{i:04}", {"i": i}, at) for i in range(450)]  # 2,700 values
    with CaptureQueriesContext(connection) as queries:
        assert rows_insert(AuditEvent, COLUMNS, values) == 450
    assert len(queries) == (1 if connection.vendor == "postgresql" else 3)
    assert [e.data["i"] for e in AuditEvent.objects.order_by("object_id")] == list(range(450))


def test_a_conflict_is_skipped_only_when_asked_and_nothing_is_half_written():
    pool = open_study(cases=1, experts=[]).pool
    PoolTally.objects.filter(pool=pool).delete()
    columns = ("pool_id", "shard", "units_complete")
    rows_insert(PoolTally, columns, [(pool.pk, 0, 5)])
    again = [(pool.pk, 1, 2), (pool.pk, 0, 9)]
    with pytest.raises(IntegrityError), transaction.atomic():
        rows_insert(PoolTally, columns, again)
    assert list(PoolTally.objects.filter(pool=pool).values_list("shard", "units_complete")) == [
        (0, 5)
    ]
    assert rows_insert(PoolTally, columns, again, ignore_conflicts=True) == 2
    tallies = PoolTally.objects.filter(pool=pool).order_by("shard")
    assert list(tallies.values_list("shard", "units_complete")) == [(0, 5), (1, 2)]


def test_every_column_is_named_and_no_rows_send_nothing():
    with pytest.raises(ValueError, match="name every column once"):
        rows_insert(AuditEvent, COLUMNS[:-1], [(None, "a", "t", "1", {})])
    with CaptureQueriesContext(connection) as queries:
        assert rows_insert(AuditEvent, COLUMNS, []) == 0
    assert not queries and not AuditEvent.objects.exists()


def test_a_row_is_updated_as_the_querysets_update_updates_it_and_only_when_it_matches():
    study = open_study(cases=2, experts=[])
    pool = study.pool
    at = datetime(2026, 11, 29, 22, 5, 1, 654321, tzinfo=UTC)
    ours, theirs = (
        Assignment.objects.create(pool=pool, unit=unit, expert=expert, slot=1, lease_expires_at=at)
        for unit, expert in zip(
            pool.units.order_by("pk"), ExpertFactory.create_batch(2), strict=True
        )
    )
    fields = {
        "status": Assignment.Status.SUBMITTED,
        "submitted_at": at,
        "draft_labels": {"c1": {"hit": True, "note": "引号\"'"}},
        "draft_active_seconds": 7,
        "draft_saved_at": None,
    }
    leased = Assignment.Status.LEASED
    with CaptureQueriesContext(connection) as queries:
        assert row_update(Assignment, where={"id": ours.pk, "status": leased}, fields=fields) == 1
    assert len(queries) == 1
    Assignment.objects.filter(pk=theirs.pk, status=leased).update(**fields)
    columns = ("status", "submitted_at", "draft_labels", "draft_active_seconds", "draft_saved_at")
    rows = Assignment.objects.order_by("pk").values_list(*columns)
    assert rows[0] == rows[1] == tuple(fields.values())
    # Not leased any more: the condition matches nothing and nothing changes.
    again = {"id": ours.pk, "status": leased}
    assert row_update(Assignment, where=again, fields={"draft_active_seconds": 9}) == 0
    assert Assignment.objects.get(pk=ours.pk).draft_active_seconds == 7
