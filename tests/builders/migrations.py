"""Migrating the test database to chosen migrations (and reading the models there)."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps
