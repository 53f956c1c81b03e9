"""The squashed migrations: a database made by the migrations they replace upgrades without work."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

pytestmark = pytest.mark.django_db


def squashed() -> dict[tuple[str, str], list[tuple[str, str]]]:
    loader = MigrationLoader(connection, ignore_no_migrations=True)
    return {
        key: list(migration.replaces)
        for key, migration in loader.disk_migrations.items()
        if key[0] in {"annotation", "benchmark", "validation"} and migration.replaces
    }


def test_each_app_has_one_squash_of_its_released_migrations():
    squashes = squashed()
    assert sorted(app for app, _ in squashes) == ["annotation", "benchmark", "validation"]
    for (app, name), replaces in squashes.items():
        assert {a for a, _ in replaces} == {app}
        assert replaces[0] == (app, "0001_initial")
        assert name.endswith(replaces[-1][1].split("_", 1)[1])  # 0001_squashed_<last replaced>


def test_a_database_made_by_the_replaced_migrations_has_nothing_left_to_apply():
    recorder = MigrationRecorder(connection)
    for (app, name), replaces in squashed().items():
        recorder.record_unapplied(app, name)
        for old_app, old_name in replaces:
            recorder.record_applied(old_app, old_name)
    executor = MigrationExecutor(connection)
    assert all(key in executor.loader.applied_migrations for key in squashed())
    targets = executor.loader.graph.leaf_nodes()
    assert executor.migration_plan(targets) == []
