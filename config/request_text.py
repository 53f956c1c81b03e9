"""The one check of what a request carries, before any view reads it: hostile input is a 400.

Text that cannot be stored is refused, not stripped: a NUL (PostgreSQL's text and jsonb cannot
hold one) or half of a surrogate pair (no UTF-8 encoding exists for it, so neither database
takes it). Nobody types either; they come from broken clients and fuzzers, and stripping them
would store something other than what was sent without saying so. The refusal names the field
(``labels[0].note``, ``q``) so a client can tell what to fix.

Checked here, once, for every door text comes in by: the query string, a form's fields
(``request.POST``, urlencoded or multipart) and a JSON body (anything walked: values and keys,
at any depth). A view, a serializer or a service never needs its own check, and a new field is
covered the day it is added. A JSON body is parsed here to be checked (a few microseconds for
the API's bodies; DRF parses the bytes again), and refused when nested deeper than
``MAX_JSON_DEPTH`` (no body of the API goes past four levels; a deeper one would only reach
Python's recursion limit in some reader) or bigger than Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``,
the one body limit, which DRF's parsers would otherwise not apply. A body that is not JSON at
all is left to the view, whose parser answers 400 in its own words.

The API (``/api/``) gets DRF's error shape, in the request's language: the field's list of
messages (``{"labels": ["..."]}``), or ``{"detail": "..."}`` about the body as a whole; pages
get the 400 page with the message.
"""

import json
import re
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string
from django.utils.translation import gettext

MAX_JSON_DEPTH = 32
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class Refused(Exception):
    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _shown(text: str) -> str:
    # A name quoted in a message must not carry the character it complains about.
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _unstorable(path: str, field: str | None) -> Refused:
    message = gettext(
        "“%(field)s” holds a character that cannot be stored (a NUL, or half of a surrogate "
        "pair); remove it and send again"
    ) % {"field": _shown(path)}
    return Refused(message, field=_shown(field) if field is not None else None)


def fields_check(pairs: Iterable[tuple[str, list[str]]]) -> None:
    """A query string's or a form's fields (``QueryDict.lists()``)."""
    for key, values in pairs:
        if _UNSTORABLE.search(key) or any(_UNSTORABLE.search(v) for v in values):
            raise _unstorable(key, key)


def json_check(value: object) -> None:
    """A parsed JSON body, walked without recursion (so depth alone cannot crash it)."""
    stack: list[tuple[object, str, str | None, int]] = [(value, "", None, 0)]
    while stack:
        item, path, field, depth = stack.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item):
                raise _unstorable(path or gettext("the body"), field)
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise Refused(
                    gettext("the request body is nested deeper than %(depth)d levels")
                    % {"depth": MAX_JSON_DEPTH}
                )
            children = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in children:
                named = isinstance(key, str)
                here = (f"{path}.{key}" if path else key) if named else f"{path}[{key}]"
                # The field a message is filed under: the top-level key of an object body.
                under = field if path else (key if named else None)
                if named and _UNSTORABLE.search(key):
                    raise _unstorable(here, under)
                stack.append((child, here, under, depth + 1))


def request_check(request: HttpRequest) -> None:
    """Raise ``Refused`` for a request that carries what no view should read."""
    fields_check(request.GET.lists())
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    try:
        if request.content_type == "application/json" or request.content_type.endswith("+json"):
            try:
                data = json.loads(request.body)
            except RecursionError:
                raise Refused(
                    gettext("the request body is nested deeper than %(depth)d levels")
                    % {"depth": MAX_JSON_DEPTH}
                ) from None
            except ValueError:  # not JSON, or not UTF-8: the view's parser says so
                return
            json_check(data)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            fields_check(request.POST.lists())
    except (RequestDataTooBig, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024**2
        raise Refused(
            gettext("the request body is too big (at most %(megabytes).1f MB, %(fields)d fields)")
            % {"megabytes": limit, "fields": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}
        ) from None
    except MultiPartParserError:  # a broken form: the view (and the login throttle) see none
        return


class RequestTextMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request_check(request)
        except Refused as refused:
            return _refusal(request, refused)
        return self.get_response(request)


def _refusal(request: HttpRequest, refused: Refused) -> HttpResponse:
    message = str(refused)
    if request.path.startswith("/api/"):
        body = {refused.field: [message]} if refused.field else {"detail": message}
        return JsonResponse(body, status=400)
    page = render_to_string("400.html", {"message": message}, request=request)
    return HttpResponse(page, status=400)
