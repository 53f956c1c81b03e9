"""Migration annotation 0005 moves each draft onto its assignment and counts each unit's
ratings; taken back, it puts the drafts back in their table."""

import pytest

from annotation import services
from annotation.models import Assignment, Unit
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.migrations import migrate
from tests.builders.studies import open_study

BEFORE = [("annotation", "0004_construction_tasks")]
AFTER = [("annotation", "0005_assignment_draft_unit_ratings")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_after")
def test_drafts_and_rating_counts_survive_the_migration_both_ways():
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=2, experts=experts, lease_minutes=60)
    held = [services.assignment_claim_next(user=e.user, pool=study.pool) for e in experts]
    for assignment in held[:2]:
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    drafted = held[2]
    services.assignment_autosave(
        assignment=drafted, labels=all_labels(drafted)[:1], active_seconds=33
    )
    saved = Assignment.objects.get(pk=drafted.pk)
    counts = dict(Unit.objects.values_list("pk", "ratings"))
    assert sum(counts.values()) == 2

    old = migrate(BEFORE)
    draft_model = old.get_model("annotation", "Draft")
    assert list(draft_model.objects.values_list("assignment_id", "labels", "active_seconds")) == [
        (drafted.pk, saved.draft_labels, 33)
    ]

    migrate(AFTER)
    moved = Assignment.objects.get(pk=drafted.pk)
    assert (moved.draft_labels, moved.draft_active_seconds) == (saved.draft_labels, 33)
    assert moved.draft_saved_at is not None
    assert not Assignment.objects.filter(draft_saved_at__isnull=False).exclude(pk=drafted.pk)
    assert dict(Unit.objects.values_list("pk", "ratings")) == counts
