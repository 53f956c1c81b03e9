"""What a page may do once it is in the browser: run the site's own scripts only, and show
imported text without letting it reorder the page.

**Content-Security-Policy**, on every response: scripts, styles, images, fonts and requests
from the site alone; no plugins, no ``<base>``, forms posting only to the site, no framing.
No page loads a third-party script or writes one inline (the data a script needs travels in
``json_script`` blocks, which are not run; Swagger UI's set-up is a file of its own), so an
injected ``<script>`` or ``onerror=`` never runs even where escaping failed. Inline styles
stay allowed: a style cannot run code, and the error pages (which must render when static
files cannot be served), the self-contained report files and the charts' colour swatches
carry them.

**Bidirectional controls** (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates)
in imported text (a dialogue, a response, a criterion, a scene) would reorder what follows
them on the line: a criterion could read backwards, or a number beside it move. They are
neutralised where text is rendered, one rule for every page, the expert API the workbench and
the senior queue render from, and the HTML files the command line writes (``bidi_shown``):
each becomes a visible ``[U+202E]``, so staff see what the data holds, and nothing else of the
text changes. The data itself is kept as imported (the judge read it so); the admin API's
reports and exports stay byte for byte.
"""

import re

from django.http import HttpRequest, HttpResponse

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
BIDI_CONTROLS = tuple(chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
# The same characters as UTF-8, found in a body without decoding it.
_BIDI_UTF8 = re.compile(rb"\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
# The URL namespace of the expert API: its units are what the workbench renders.
EXPERT_API = "annotation"


_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def bidi_neutralise(body: bytes) -> bytes:
    """UTF-8 ``body`` with each bidirectional control shown as ``[U+XXXX]``."""
    return _BIDI_UTF8.sub(lambda m: f"[U+{ord(m.group().decode()):04X}]".encode(), body)


def bidi_shown(html: str) -> str:
    """The same for a page rendered outside a request: the files the command line writes."""
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", html)


def _rendered(request: HttpRequest, response: HttpResponse) -> bool:
    if response.streaming or (response.charset or "").lower().replace("-", "") != "utf8":
        return False
    content_type = response.get("Content-Type", "")
    if content_type.startswith("text/html"):
        return True
    match = request.resolver_match
    return content_type.startswith("application/json") and bool(
        match and match.namespace == EXPERT_API
    )


class PageSafetyMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        if _rendered(request, response) and _BIDI_UTF8.search(response.content):
            response.content = bidi_neutralise(response.content)
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response
