"""Fixtures shared by the annotation tests."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


@pytest.fixture
def latest_schema_after():
    """The database back at the newest migration of every app afterwards, pass or fail: the
    tests after this one share it (a later migration, 0006, would be missing otherwise)."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
