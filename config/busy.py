"""A database too busy to answer in time is a 503 with Retry-After, never a 500.

On the embedded SQLite every write waits for the one write lock, for at most the busy timeout
(config.env.SQLITE_BUSY_TIMEOUT); past it SQLite says "database is locked". That is load, not
a fault: the request changed nothing (its transaction rolled back), so the client is told to
try again shortly. The API gets JSON in DRF's error shape; pages get a short page in the
interface language.
"""

import logging

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2
BUSY_MESSAGES = ("database is locked", "database table is locked")


def database_busy(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and any(m in str(exc) for m in BUSY_MESSAGES)


class DatabaseBusyMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not database_busy(exception):
            return None
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
