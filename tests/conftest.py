import os
from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import translation

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "heartbench-data"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


def require(condition: bool, reason: str) -> None:
    """Skip with a visible reason when a service is missing; under CI a missing service fails."""
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def pytest_collection_modifyitems(config, items):
    # The SQLite pass deselects these with -m "not postgres" instead of skipping them.
    for item in items:
        if "on_postgres" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Login-failure counts and rate-limit buckets live in the cache (Redis when the run has
    # one); a test must not inherit another's, or a later login is throttled.
    cache.clear()


@pytest.fixture(autouse=True)
def _english_by_default(settings):
    """Tests speak English unless they ask otherwise; the product default is Chinese.

    A request picks its own language (cookie, then Accept-Language, then LANGUAGE_CODE), so a
    test asks for Chinese with `HTTP_ACCEPT_LANGUAGE="zh-hans"` or the `django_language`
    cookie. Code run outside a request (reports, services) sees the activated English.
    """
    settings.LANGUAGE_CODE = "en"
    with translation.override("en"):
        yield


@pytest.fixture
def shared_data() -> Path:
    """The released HeartBench files, read in place from ../shared (never copied)."""
    require((SHARED_DATA / "question_all.jsonl").exists(), f"no released data at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def on_postgres(db) -> None:
    require(
        connection.vendor == "postgresql",
        "needs PostgreSQL: run under `python -m tests.services --postgres`",
    )


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    require(bool(url), "needs Redis: run under `python -m tests.services --redis`")
    return url
