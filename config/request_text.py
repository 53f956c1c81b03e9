"""The one check of what a request carries, before any view reads it: hostile input is a 4xx.

Text that cannot be stored (``config.storable``, the rule imported files follow too) is
refused, not stripped: a NUL (PostgreSQL's text and jsonb cannot hold one) or half of a
surrogate pair (no UTF-8 encoding exists for it, so neither database takes it). Nobody types
either; they come from broken clients and fuzzers, and stripping them would store something
other than what was sent without saying so. The refusal is a 400 naming the field
(``labels[0].note``, ``q``) so a client can tell what to fix; in the path, which names
something to look up, it is a 404 (nothing stored can have that name).

Checked here, once, for every door text comes in by: the path, the query string, a form's
fields (``request.POST``, urlencoded or multipart) and a JSON body (anything walked: values
and keys, at any depth). A view, a serializer or a service never needs its own check, and a
new field is covered the day it is added. A JSON body is parsed here to be checked (about
0.1 ms for a workbench autosave of 24 labels with notes; DRF parses the bytes again), and
refused when nested deeper than ``MAX_JSON_DEPTH`` (no body of the API goes past four levels;
a deeper one would only reach Python's recursion limit in some reader) or bigger than
Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``, the one body limit, which DRF's parsers would
otherwise not apply. A body that is not JSON at all is left to the view, whose parser answers
400 in its own words.

The API (``/api/``) gets DRF's error shape, in the request's language: the field's list of
messages (``{"labels": ["..."]}``), or ``{"detail": "..."}`` about the body as a whole; pages
get the 400 page with the message.
"""

import json
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string
from django.utils.translation import gettext

from config.storable import UNSTORABLE, json_fault, shown

MAX_JSON_DEPTH = 32


class Refused(Exception):
    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _unstorable(path: str, field: str | None) -> Refused:
    message = gettext(
        "“%(field)s” holds a character that cannot be stored (a NUL, or half of a surrogate "
        "pair); remove it and send again"
    ) % {"field": path}
    return Refused(message, field=field)


def _too_deep() -> Refused:
    return Refused(
        gettext("the request body is nested deeper than %(depth)d levels")
        % {"depth": MAX_JSON_DEPTH}
    )


def fields_check(pairs: Iterable[tuple[str, list[str]]]) -> None:
    """A query string's or a form's fields (``QueryDict.lists()``)."""
    for key, values in pairs:
        if UNSTORABLE.search(key) or any(UNSTORABLE.search(v) for v in values):
            raise _unstorable(shown(key), shown(key))


def json_check(value: object) -> None:
    """A parsed JSON body."""
    fault = json_fault(value, max_depth=MAX_JSON_DEPTH)
    if fault is None:
        return
    if fault.deep:
        raise _too_deep()
    raise _unstorable(fault.path or gettext("the body"), fault.field)


def request_check(request: HttpRequest) -> None:
    """Raise ``Refused`` for a request that carries what no view should read."""
    try:
        fields_check(request.GET.lists())
    except TooManyFieldsSent:
        raise Refused(
            gettext("the query string has more than %(fields)d fields")
            % {"fields": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}
        ) from None
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    try:
        if request.content_type == "application/json" or request.content_type.endswith("+json"):
            try:
                data = json.loads(request.body)
            except RecursionError:
                raise _too_deep() from None
            except ValueError:  # not JSON, or not UTF-8: the view's parser says so
                return
            json_check(data)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            fields_check(request.POST.lists())
    except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent):
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
        if UNSTORABLE.search(request.path_info):
            return _not_found(request)
        try:
            request_check(request)
        except Refused as refused:
            return _refusal(request, refused)
        return self.get_response(request)


def _not_found(request: HttpRequest) -> HttpResponse:
    # A path segment is a name or an id to look up, and nothing stored can hold a NUL: no
    # page or object has this address (a lookup with it would be an error on PostgreSQL).
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": gettext("not found")}, status=404)
    return HttpResponse(render_to_string("404.html", request=request), status=404)


def _refusal(request: HttpRequest, refused: Refused) -> HttpResponse:
    message = str(refused)
    if request.path.startswith("/api/"):
        body = {refused.field: [message]} if refused.field else {"detail": message}
        return JsonResponse(body, status=400)
    page = render_to_string("400.html", {"message": message}, request=request)
    return HttpResponse(page, status=400)
