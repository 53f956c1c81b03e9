"""PostgreSQL connections bind parameters on the server and prepare a statement run again
(config.env.database_from_url), so the hot statements are parsed and planned once per
connection."""

import pytest
from django.db import connection

from config.env import PREPARE_THRESHOLD, database_from_url


def test_a_postgres_url_asks_for_server_binding_and_prepared_statements(tmp_path):
    options = database_from_url("postgres://u@h:5432/db", default_sqlite=tmp_path)["OPTIONS"]
    assert options == {"server_side_binding": True, "prepare_threshold": PREPARE_THRESHOLD}
    sqlite = database_from_url("", default_sqlite=tmp_path / "x.sqlite3")["OPTIONS"]
    assert "prepare_threshold" not in sqlite


@pytest.mark.django_db
def test_a_statement_run_again_is_prepared_on_its_connection(on_postgres):
    from annotation.models import Unit

    def prepared() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_prepared_statements")
            return cursor.fetchone()[0]

    before = prepared()
    for _ in range(PREPARE_THRESHOLD + 1):  # psycopg prepares it on the run after these
        list(Unit.objects.filter(pk=1))
    assert prepared() > before
