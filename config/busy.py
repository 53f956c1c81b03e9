"""A database too busy to answer in time, or not there, is a 503 with Retry-After, never a 500.

On the embedded SQLite every write waits for the one write lock, for at most the busy timeout
(config.env.SQLITE_BUSY_TIMEOUT); past it SQLite says "database is locked". That is load, not
a fault: the request changed nothing (its transaction rolled back), so the client is told to
try again shortly. PostgreSQL refusing connections, starting up, shutting down or dropping one
(a restart, a failover) is the same to a client: every ``OperationalError`` or
``InterfaceError`` psycopg raised. Any other SQLite error ("no such table") stays a 500: that
is a fault to fix, not to wait out. The API gets JSON in DRF's error shape; pages get a short
page in the interface language.

Views' exceptions reach ``DatabaseBusyMiddleware``; one raised by a middleware (the session
saved after the view, say) reaches the error handler, ``server_error`` (``handler500``).
"""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext
from django.views import defaults

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2
BUSY_MESSAGES = ("database is locked", "database table is locked")


def database_busy(exc: BaseException) -> bool:
    if not isinstance(exc, OperationalError | InterfaceError):
        return False
    if any(m in str(exc) for m in BUSY_MESSAGES):
        return True
    return type(exc.__cause__).__module__.startswith("psycopg")


class DatabaseBusyMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return busy_response(request, exception) if database_busy(exception) else None


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500, unless the exception being handled is the database being busy or down."""
    exception = sys.exc_info()[1]
    if exception is not None and database_busy(exception):
        return busy_response(request, exception)
    return defaults.server_error(request)


def busy_response(request: HttpRequest, exception: BaseException) -> HttpResponse:
    """503 with Retry-After: JSON on the API, a short translated page elsewhere."""
    logger.warning("database busy on %s %s: %s", request.method, request.path, exception)
    message = gettext("The server is busy right now; nothing was changed. Try again shortly.")
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message, "code": "busy"}, status=503)
    else:
        response = HttpResponse(
            render_to_string("503.html", {"message": message}, request=request), status=503
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
