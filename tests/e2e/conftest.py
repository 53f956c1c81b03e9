"""Chromium through Playwright for the browser tests, in either interface language."""

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require

# Playwright's sync API runs an event loop in this thread; Django's ORM calls here are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# Interface language → the browser locale that asks for it through Accept-Language.
LOCALES = {"zh-hans": "zh-CN", "en": "en-US"}


@pytest.fixture(scope="module")
def chromium():
    """One Chromium per module (a launch takes seconds); each test opens its own context."""
    require(CHROMIUM.exists(), "needs Chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield browser
        browser.close()


class InFlight:
    """The requests a browser context has sent and not yet seen answered (or fail)."""

    def __init__(self, context) -> None:
        self.requests = set()
        context.on("request", self.sent)
        context.on("requestfinished", self.ended)
        context.on("requestfailed", self.ended)

    def sent(self, request) -> None:
        self.requests.add(request)

    def ended(self, request) -> None:
        self.requests.discard(request)

    def close(self, context, server: "Handling", *, seconds: float = 15.0) -> None:
        """Close `context` once the live server has answered everything the page sent.

        The browser is shared by a module, so closing a context is quick; a request the page
        sent just before (an autosave, the progress line) could otherwise still be writing when
        the test's database is flushed. Closing hides the page, and the workbench saves its
        draft when hidden: that request reaches the server after the browser has let go of it,
        so the server's own count is waited for last.
        """
        for _ in range(int(seconds / 0.05)):
            if not self.requests or not context.pages:
                break
            context.pages[0].wait_for_timeout(50)  # lets Playwright deliver the events
        context.close()
        server.wait_quiet(seconds=seconds)


class Handling:
    """Counts the requests the live server is handling; wraps its WSGI application once."""

    def __init__(self, httpd) -> None:
        self.app = httpd.get_app()
        self.count = 0
        self.changed = threading.Condition()
        httpd.set_app(self)

    def __call__(self, environ, start_response):
        with self.changed:
            self.count += 1
            self.changed.notify_all()
        try:
            return Answered(self.app(environ, start_response), self.done)
        except BaseException:
            self.done()
            raise

    def done(self) -> None:
        with self.changed:
            self.count -= 1
            self.changed.notify_all()

    def wait_quiet(self, *, seconds: float, quiet: float = 0.1) -> None:
        """Wait until no request has been handled for `quiet` seconds (at most `seconds`)."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while time.monotonic() < deadline:
                if self.count:
                    self.changed.wait(max(0.0, deadline - time.monotonic()))
                elif not self.changed.wait(quiet) and not self.count:
                    return


class Answered:
    """A response body that tells `done` when the server has closed it."""

    def __init__(self, body, done) -> None:
        self.body, self.done = body, done

    def __iter__(self):
        return iter(self.body)

    def close(self) -> None:
        try:
            if hasattr(self.body, "close"):
                self.body.close()
        finally:
            self.done()


@pytest.fixture
def handling(live_server) -> Handling:
    """The live server's count of requests in hand (its application is wrapped once)."""
    httpd = live_server.thread.httpd
    app = httpd.get_app()
    return app if isinstance(app, Handling) else Handling(httpd)


@pytest.fixture
def browser_page(chromium, handling):
    page = chromium.new_page(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    in_flight = InFlight(page.context)
    yield page
    in_flight.close(page.context, handling)


@pytest.fixture(params=list(LOCALES), ids=list(LOCALES))
def language(request) -> str:
    """Run a browser test once per interface language."""
    return request.param


@pytest.fixture
def page_in(chromium, language, handling) -> Iterator:
    """A page whose browser asks for `language`, with the language cookie set to match."""
    context = chromium.new_context(
        viewport={"width": 1280, "height": 900}, locale=LOCALES[language]
    )
    in_flight = InFlight(context)
    page = context.new_page()
    page.language = language
    yield page
    in_flight.close(context, handling)


def login(page, live_server, username: str, password: str, *, next_path: str = "/") -> None:
    page.goto(f"{live_server.url}/login/?next={next_path}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.press("input[name=password]", "Enter")
    page.wait_for_load_state()


def shoot(page, artifacts: Path, name: str) -> Path:
    """Save a full-page screenshot as `<name>-<language>.png` among the test artefacts."""
    path = artifacts / f"{name}-{getattr(page, 'language', 'zh-hans')}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
