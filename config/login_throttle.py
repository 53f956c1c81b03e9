"""Slow down password guessing on every login door: the login page, the admin's, the API token.

Failed attempts are counted in the cache (Redis when configured, so every web process shares
the count) per client address and user name: past that limit the name is locked from that
address, a login POST with it gets 429 with Retry-After until the window passes. A successful
login clears the user-name counter, so an expert who mistypes a few times is not locked out
afterwards.

Per address alone the count is of distinct user names failed in the window, and past its limit
the address is slowed, never locked: each attempt waits 1, 2, 4, ... seconds after the
address's last failure, at most ``ADDRESS_WAIT_CAP``. A whole team shares one address behind
an office NAT; a lock there would let one guesser (or one script with a stale password list)
lock everyone out for the window, while a wait leaves a colleague with the right password a
short one and a guesser trying new names a couple of tries a minute (each name still locked
after its own few failures).

A middleware rather than a change to each view: the three doors are written by three different
parts (Django's admin, the frontend, DRF) and a new one only needs adding to the list.
"""

import json
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _

# URL name -> how a success looks: page logins log the user in; the API answers 200 + a token.
LOGIN_DOORS = {"frontend:login": "session", "admin:login": "session", "annotation:token": "token"}


# The longest an address past its limit waits after its last failure (seconds).
ADDRESS_WAIT_CAP = 30


@dataclass(frozen=True)
class ThrottleLimits:
    per_user: int  # failures per (address, user name) in the window
    per_address: int  # distinct user names failed from an address in the window
    window: int  # seconds

    @classmethod
    def from_settings(cls) -> "ThrottleLimits":
        raw = settings.HEARTBENCH_LOGIN_THROTTLE
        return cls(per_user=raw["per_user"], per_address=raw["per_address"], window=raw["window"])


def _doors() -> dict[str, str]:
    doors = {}
    for name, kind in LOGIN_DOORS.items():
        try:
            doors[reverse(name)] = kind
        except NoReverseMatch:  # a door this URLconf does not have
            continue
    return doors


def client_address(request: HttpRequest) -> str:
    # Behind a proxy REMOTE_ADDR is the proxy; the deployment guide has the proxy overwrite
    # X-Real-IP, which is trusted only when HEARTBENCH_TRUST_X_REAL_IP is on.
    if settings.HEARTBENCH_TRUST_X_REAL_IP and request.META.get("HTTP_X_REAL_IP"):
        return request.META["HTTP_X_REAL_IP"]
    return request.META.get("REMOTE_ADDR", "")


def login_username(request: HttpRequest) -> str:
    """The user name a login POST tries, as the throttle keys it ('' when there is none).

    The token endpoint takes JSON as well as form-encoded and multipart bodies (DRF's parsers);
    Django only parses the latter two into ``request.POST``. A body that cannot be read gives
    '': the view refuses it, the failure is counted against the address, and nothing here
    raises, so a broken body neither crashes the request nor slips past the counts.
    """
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body)
        except (ValueError, RequestDataTooBig):  # JSONDecodeError and UnicodeDecodeError too
            return ""
        value = data.get("username") if isinstance(data, dict) else None
    else:
        try:
            value = request.POST.get("username")
        except (MultiPartParserError, TooManyFieldsSent, TooManyFilesSent, RequestDataTooBig):
            return ""
    # DRF's CharField reads a number as its digits, so 12345 and "12345" are one user name.
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return str(value).strip().lower()[:150]


class LoginThrottleMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.doors: dict[str, str] | None = None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return self.get_response(request)
        if self.doors is None:
            self.doors = _doors()
        kind = self.doors.get(request.path_info)
        if kind is None:
            return self.get_response(request)
        limits = ThrottleLimits.from_settings()
        address = client_address(request)
        username = login_username(request)
        user_key = f"login-fail:{address}:{username}"
        address_key = f"login-fail:{address}"
        last_key = f"login-last:{address}"
        if cache.get(user_key, 0) >= limits.per_user:
            return _refusal(request, kind, limits.window)
        wait = address_wait(
            names=cache.get(address_key, 0), last=cache.get(last_key), limit=limits.per_address
        )
        if wait:
            return _refusal(request, kind, wait)
        response = self.get_response(request)
        if _succeeded(request, response, kind):
            cache.delete(user_key)
        else:
            if _count(user_key, limits.window):  # this name's first failure in the window
                _count(address_key, limits.window)
            cache.set(last_key, _now(), timeout=limits.window)
        return response


def _now() -> float:
    return time.time()


def address_wait(*, names: int, last: float | None, limit: int) -> int:
    """Seconds an address must still wait before its next attempt: none below ``limit``
    distinct names failed; past it 1, 2, 4, ... after its last failure, at most the cap."""
    if names < limit or last is None:
        return 0
    delay = min(2 ** min(names - limit, 16), ADDRESS_WAIT_CAP)
    return max(0, math.ceil(last + delay - _now()))


def _count(key: str, window: int) -> bool:
    """One more failure under ``key``; True when it is the first in the window. add() then
    incr() keeps the window from the first failure and is atomic on Redis, so concurrent
    guesses are all counted (and exactly one of them is the first)."""
    first = cache.add(key, 0, timeout=window)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
        first = True
    return first


def _refusal(request: HttpRequest, kind: str, wait: int) -> HttpResponse:
    # LocaleMiddleware runs first, so the words are in the request's language: the API's in
    # DRF's error shape, the pages' as a page of their own (rendered without the context
    # processors, like the busy page: nothing here may query). The page's header switches the
    # language, which needs the request's path and CSRF token (neither queries).
    message = _("Too many failed logins; try again later.")
    if kind == "token":
        response = JsonResponse({"detail": message}, status=429)
    else:
        # An address slowed down waits seconds (address_wait); a locked name, minutes.
        seconds = wait if wait < 60 else None
        minutes = max(1, -(-wait // 60))
        context = {"message": message, "minutes": minutes, "seconds": seconds, "request": request}
        page = render_to_string("429.html", {**context, "csrf_token": get_token(request)})
        response = HttpResponse(page, status=429)
    response["Retry-After"] = str(wait)
    return response


def _succeeded(request: HttpRequest, response: HttpResponse, kind: str) -> bool:
    if kind == "token":
        return response.status_code == 200
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and response.status_code < 400)
