"""Chromium through Playwright for the browser tests, in either interface language."""

import os
import threading
import time
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
    from playwright.sync_api import Page, sync_playwright

    _wait_without_eval(Page)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield browser
        browser.close()


def _wait_without_eval(page_class) -> None:
    """Playwright runs a ``wait_for_function`` given as a bare expression through eval(), which
    the pages' Content-Security-Policy refuses (no 'unsafe-eval', config.page_safety); given as
    a function it needs none. So the tests' expressions are sent as functions, and every
    browser test runs under the policy the product serves."""
    wait = page_class.wait_for_function
    if getattr(wait, "without_eval", False):
        return

    def wait_for_function(self, expression: str, **kwargs):
        if not expression.lstrip().startswith(("(", "function", "async")):
            expression = f"() => ({expression})"
        return wait(self, expression, **kwargs)

    wait_for_function.without_eval = True
    page_class.wait_for_function = wait_for_function


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


@pytest.fixture(autouse=True)
def settle(request):
    """After a browser test, before its database is flushed: close the browser contexts the
    test opened and wait until the live server has finished every request they sent.

    The browser is shared by a module, so a context left open would go on calling the server
    in later tests; and closing hides the workbench, which saves its draft when hidden, so that
    request reaches the server after the browser has let go of it. A flush under such a
    request fails (in-memory SQLite shares one connection with the server's threads).
    """
    if "live_server" not in request.fixturenames:
        yield
        return
    httpd = request.getfixturevalue("live_server").thread.httpd
    app = httpd.get_app()
    server = app if isinstance(app, Handling) else Handling(httpd)
    yield
    if "chromium" in request.fixturenames:
        for context in request.getfixturevalue("chromium").contexts:
            context.close()
    server.wait_quiet(seconds=15)


@pytest.fixture
def browser_page(chromium):
    """A page in its own context (closed by `settle`)."""
    return chromium.new_page(viewport={"width": 1280, "height": 900}, locale="zh-CN")


@pytest.fixture(params=list(LOCALES), ids=list(LOCALES))
def language(request) -> str:
    """Run a browser test once per interface language."""
    return request.param


@pytest.fixture
def page_in(chromium, language):
    """A page whose browser asks for `language`, with the language cookie set to match."""
    context = chromium.new_context(
        viewport={"width": 1280, "height": 900}, locale=LOCALES[language]
    )
    page = context.new_page()
    page.language = language
    return page


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
