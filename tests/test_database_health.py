"""A kept PostgreSQL connection is checked at each request's first use (``CONN_HEALTH_CHECKS``)
without a round trip while the server has said nothing (``config.postgresql``), and replaced
when the server has ended it. ``tests/integration/test_faults_database.py`` restarts the server
under the served API."""

import pytest
from django.db import connections

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def checks(on_postgres, monkeypatch) -> list[bool]:
    """Django's own health check (``SELECT 1``) on the default connection, recorded."""
    wrapper = connections["default"]
    assert wrapper.health_check_enabled
    done: list[bool] = []
    real = wrapper.is_usable

    def is_usable() -> bool:
        done.append(real())
        return done[-1]

    monkeypatch.setattr(wrapper, "is_usable", is_usable)
    return done


def next_request_pid() -> int:
    """The server process behind the default connection at a new request's first statement
    (a request starts and ends with ``close_if_unusable_or_obsolete``)."""
    wrapper = connections["default"]
    wrapper.close_if_unusable_or_obsolete()
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_quiet_connection_is_kept_without_a_select_1(checks):
    first = next_request_pid()
    assert [next_request_pid() for _ in range(3)] == [first] * 3
    assert checks == []


def test_a_connection_the_server_ended_is_replaced_at_the_next_request(checks):
    ended = next_request_pid()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:  # waits up to 5 s for the backend to exit
            cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [ended])
            assert cursor.fetchone() == (True,)
    finally:
        other.close()
    replaced = next_request_pid()
    assert replaced != ended
    assert checks == [False]  # the server's word sent it to Django's check, which failed
