"""DATABASE_URL's PostgreSQL connection: values bound on the server and the statements a
connection repeats prepared, unless DATABASE_PREPARED_STATEMENTS turns it off; the URL's own
query keeps libpq's options only, so the same URL serves pg_dump."""

import subprocess
import sys
from pathlib import Path

import pytest

from config.env import database_from_url

SQLITE = Path("unused.sqlite3")
URL = "postgres://u:p@db:5432/heartbench?sslmode=require"


def test_postgres_binds_values_on_the_server_and_prepares_what_a_connection_repeats():
    assert database_from_url(URL, default_sqlite=SQLITE)["OPTIONS"] == {
        "sslmode": "require",
        "server_side_binding": True,
        "prepare_threshold": 2,
    }


def test_postgres_sessions_are_kept_and_checked_not_recycled():
    # A recycled session plans every statement anew; a dead one is found by the health check.
    database = database_from_url(URL, default_sqlite=SQLITE)
    assert (database["CONN_MAX_AGE"], database["CONN_HEALTH_CHECKS"]) == (None, True)


def test_without_prepared_statements_only_the_urls_own_options_are_left():
    options = database_from_url(URL, default_sqlite=SQLITE, prepared=False)["OPTIONS"]
    assert options == {"sslmode": "require"}


@pytest.mark.parametrize(("value", "expected"), [("", True), ("false", False), ("1", True)])
def test_the_settings_read_the_switch_from_the_environment(value, expected):
    probe = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; "
        "from django.conf import settings; "
        "print('server_side_binding' in settings.DATABASES['default']['OPTIONS'])"
    )
    env = {"DATABASE_URL": URL, "DATABASE_PREPARED_STATEMENTS": value, "PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(expected)


def test_a_switch_that_is_not_a_boolean_is_refused_by_name():
    probe = "import config.settings"
    env = {"DATABASE_URL": URL, "DATABASE_PREPARED_STATEMENTS": "sometimes", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "DATABASE_PREPARED_STATEMENTS='sometimes' is not a boolean" in out.stderr
