import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import translation

PROJECT = Path(__file__).resolve().parents[1]
SHARED_DATA = PROJECT.parent / "shared" / "heartbench-data"
ARTIFACTS = PROJECT / "test-artifacts"
# The shared builders assert too (a refused import, a signed-in session): explain their failures.
pytest.register_assert_rewrite("tests.builders")


def require(condition: bool, reason: str) -> None:
    """Skip with a visible reason when a service is missing; under CI a missing service fails."""
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


# What reaches the database of the pass in process: pytest-django refuses a test without one.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
    "product",
    "empty_product",
}
# A test without the `database` mark runs in the SQLite pass only; a process it starts that
# inherits this DATABASE_URL and opens a connection fails, naming the missing mark.
NO_DATABASE_URL = "postgres:///none?host=/a-test-that-uses-the-database-needs-the-database-mark"


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        # The SQLite pass deselects these with -m "not postgres" instead of skipping them.
        if "on_postgres" in fixtures:
            item.add_marker(pytest.mark.postgres)
        # The PostgreSQL pass runs only these (-m database): the rest never meet a database.
        if fixtures & DATABASE_FIXTURES or any(
            item.get_closest_marker(name) for name in ("django_db", "postgres")
        ):
            item.add_marker(pytest.mark.database)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """SQLite tests use a file, as the product does, never Django's in-memory default.

    In memory, the live server's threads and the test share one connection, and so one
    transaction state: two requests at once (a page and its draft save) can leave it broken
    for every later test. With a file each thread has its own connection and SQLite's own
    locking, as under `heartbench serve`.
    """
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        name = tmp_path_factory.mktemp("db") / "test.db"
        database.setdefault("TEST", {})["NAME"] = str(name)
        if SCHEMA.exists():
            shutil.copyfile(SCHEMA, name)


# The SQLite test database as the migrations left it, kept between runs under the hash of the
# migrations (and Django's version): a run copies it in a few milliseconds instead of migrating
# for 10-20 s. Migrate still runs on the copy (it finds nothing to do), and a changed migration
# makes a new file (tests/benchmark/test_model_names.py checks them against the models).
def _schema_file() -> Path:
    import django

    digest = hashlib.sha256(django.__version__.encode())
    for path in sorted(PROJECT.glob("*/migrations/*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return PROJECT / "var" / "test-schema" / f"{digest.hexdigest()[:16]}.sqlite3"


SCHEMA = _schema_file()


def sqlite_migrated(path: Path) -> str:
    """The URL of a SQLite file at `path` for a process of a test's own: the kept schema when a
    run has made it, so the process's migrate finds nothing to do."""
    if SCHEMA.exists():
        shutil.copyfile(SCHEMA, path)
    return f"sqlite:///{path}"


@pytest.fixture(scope="session")
def django_db_keepdb(request) -> bool:
    # Keep (and so migrate onto) the copied schema; the file is the session's own either way.
    return request.config.getvalue("reuse_db") or connection.vendor == "sqlite"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's set-up, then the SQLite schema kept for the next run: through SQLite's
    backup (the database is in WAL mode, so the file alone may miss pages), to a temporary name
    first, so a run beside this one never copies half a file."""
    from django.conf import settings

    if connection.vendor == "sqlite" and not SCHEMA.exists():
        SCHEMA.parent.mkdir(parents=True, exist_ok=True)
        partial = SCHEMA.with_name(f"{SCHEMA.name}.{os.getpid()}")
        source = sqlite3.connect(settings.DATABASES["default"]["NAME"])
        target = sqlite3.connect(partial)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        os.replace(partial, SCHEMA)
    yield


@pytest.fixture(autouse=True)
def _no_database_unless_marked(request, monkeypatch):
    if request.node.get_closest_marker("database") is None:
        monkeypatch.setenv("DATABASE_URL", NO_DATABASE_URL)


# Django's documented fast hasher for tests: the product's PBKDF2 costs about 0.27 s a user,
# most of a scenario builder's set-up. Tests about passwords ask for `production_hasher`.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    from django.test.utils import override_settings

    # override_settings announces the change, so Django's cached list of hashers follows it.
    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        yield


@pytest.fixture
def production_hasher():
    """The hashers the product runs with (Django's defaults, PBKDF2 first), for a test about
    passwords themselves."""
    from django.conf import global_settings
    from django.test.utils import override_settings

    with override_settings(PASSWORD_HASHERS=global_settings.PASSWORD_HASHERS):
        yield


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
def few_resamples(monkeypatch) -> int:
    """Reports at 200 bootstrap resamples instead of the product's 2,000, wherever the default
    is taken (pages, commands, `BootstrapSettings()`): for tests that pin no interval's figures.
    tests/validation/test_statistics_bootstrap.py pins an interval at the production count."""
    from validation.statistics import BootstrapSettings

    resamples = 200
    init = BootstrapSettings.__init__
    monkeypatch.setattr(init, "__defaults__", (resamples, *init.__defaults__[1:]))
    monkeypatch.setattr(BootstrapSettings, "resamples", resamples)
    return resamples


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
