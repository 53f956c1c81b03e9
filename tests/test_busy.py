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
