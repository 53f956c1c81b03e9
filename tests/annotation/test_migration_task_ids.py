"""Migration annotation 0010 brings construction tasks into the one family of expert work:
each task already there gets its own public id, and keeps its status, lease and history."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models import ConstructionTask
from annotation.services.construction import construction_task_claim_next, construction_work_open
from benchmark.models import AuditEvent
from tests.builders.construction import project_build
from tests.builders.migrations import migrate

BEFORE = [("annotation", "0009_expert_is_demo")]
AFTER = [("annotation", "0010_constructiontask_public_id")]


@pytest.fixture
def latest_schema_after():
    """The database back at the newest migration of every app afterwards, pass or fail."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_after")
def test_each_existing_task_gets_its_own_id_and_keeps_its_history():
    built = project_build()
    construction_work_open(project=built.project, kind="difficulty")
    for expert in built.experts:
        construction_task_claim_next(user=expert.user, project=built.project, kind="difficulty")
    before = list(ConstructionTask.objects.order_by("pk").values_list("pk", "status", "draft_id"))
    audit = AuditEvent.objects.filter(action="construction_task.claim").count()
    assert len(before) == 3 and audit == 3

    old = migrate(BEFORE)
    old_task = old.get_model("annotation", "ConstructionTask")
    assert "public_id" not in {f.name for f in old_task._meta.get_fields()}
    migrate(AFTER)

    after = ConstructionTask.objects.order_by("pk")
    assert list(after.values_list("pk", "status", "draft_id")) == before
    ids = list(after.values_list("public_id", flat=True))
    assert None not in ids and len(set(ids)) == 3
    assert AuditEvent.objects.filter(action="construction_task.claim").count() == audit
