"""A database that stays locked past the busy timeout answers 503 + Retry-After, never 500."""

import json

from django.db import OperationalError
from django.test import RequestFactory

from config.busy import DatabaseBusyMiddleware


def _middleware() -> DatabaseBusyMiddleware:
    return DatabaseBusyMiddleware(lambda request: None)


def test_an_api_request_gets_json_with_retry_after():
    request = RequestFactory().post("/api/v1/assignments/next/?study=s")
    response = _middleware().process_exception(request, OperationalError("database is locked"))
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    body = json.loads(response.content)
    assert body["code"] == "busy" and "nothing was changed" in body["detail"]


def test_a_page_gets_a_page_in_the_reader_language(settings):
    request = RequestFactory().get("/rate/s/")
    from django.utils import translation

    with translation.override("zh-hans"):
        response = _middleware().process_exception(
            request, OperationalError("database table is locked: annotation_unit")
        )
    assert response.status_code == 503 and response["Retry-After"]
    assert "繁忙" in response.content.decode()


def test_other_database_errors_are_not_dressed_up_as_busy():
    request = RequestFactory().get("/")
    assert _middleware().process_exception(request, OperationalError("no such table: x")) is None
    assert _middleware().process_exception(request, ValueError("database is locked")) is None


def _postgres_down(message: str) -> OperationalError:
    """What Django raises when PostgreSQL is gone: its OperationalError from psycopg's."""
    import psycopg

    try:
        try:
            raise psycopg.OperationalError(message)
        except psycopg.OperationalError as cause:
            raise OperationalError(message) from cause
    except OperationalError as exc:
        return exc


def test_postgresql_refusing_starting_up_or_dropping_the_connection_is_busy_too():
    request = RequestFactory().post("/api/v1/assignments/next/?study=s")
    for message in (
        'connection failed: connection to server at "127.0.0.1", port 5432 failed: '
        "Connection refused",
        "the database system is starting up",
        "terminating connection due to administrator command",
        "server closed the connection unexpectedly",
    ):
        response = _middleware().process_exception(request, _postgres_down(message))
        assert response is not None and response.status_code == 503, message
        assert response["Retry-After"] and json.loads(response.content)["code"] == "busy"


def test_a_database_outage_outside_any_view_is_a_503_too(client, monkeypatch, db):
    """A middleware that meets the outage (the session saved after the view, say) is answered
    by the error handler: 503 with Retry-After and the API's JSON shape, not Django's 500."""
    from django.contrib.sessions.middleware import SessionMiddleware

    def down(self, request, response):
        raise _postgres_down("the database system is shutting down")

    monkeypatch.setattr(SessionMiddleware, "process_response", down)
    client.raise_request_exception = False
    api = client.get("/api/v1/studies/")
    assert api.status_code == 503 and api["Retry-After"]
    assert api.json()["code"] == "busy"
    page = client.get("/login/")
    assert page.status_code == 503 and page["Retry-After"]
    assert "<html" in page.content.decode()
