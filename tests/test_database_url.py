"""DATABASE_URL's PostgreSQL options: values bound on the server and hot statements prepared
unless the URL says otherwise; a value that is not one is refused by name."""

from pathlib import Path

import pytest

from config.env import ConfigurationError, database_from_url

SQLITE = Path("unused.sqlite3")


def options(url: str) -> dict:
    return database_from_url(url, default_sqlite=SQLITE)["OPTIONS"]


def test_postgres_binds_values_on_the_server_and_prepares_what_a_connection_repeats():
    assert options("postgres://u:p@db:5432/heartbench") == {
        "server_side_binding": True,
        "prepare_threshold": 2,
    }


def test_the_url_turns_them_off_or_moves_the_threshold_and_keeps_its_other_options():
    assert options("postgres://db/h?sslmode=require&server_side_binding=False") == {
        "server_side_binding": False,
        "prepare_threshold": 2,
        "sslmode": "require",
    }
    assert options("postgres://db/h?prepare_threshold=10")["prepare_threshold"] == 10


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("server_side_binding=yes", "server_side_binding"),
        ("prepare_threshold=-1", "prepare_threshold"),
    ],
)
def test_a_value_that_is_not_one_is_refused_by_name(query, named):
    with pytest.raises(ConfigurationError, match=named):
        options(f"postgres://db/h?{query}")
