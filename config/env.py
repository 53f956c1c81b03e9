"""The one place that reads the process environment into settings.

Every setting that may differ between machines comes through here, so the whole
configuration surface is the list of names read below (documented in the README).
"""

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit


class ConfigurationError(RuntimeError):
    """The environment asks for something the platform cannot run with."""


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigurationError(f"{name}={raw!r} is not a boolean (use 1/0, true/false)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigurationError(f"{name}={raw!r} is not an integer") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


# Seconds a connection waits for SQLite's write lock before giving up (the request then gets a
# 503 with Retry-After from config.busy, never a 500).
SQLITE_BUSY_TIMEOUT = 20


def _sqlite(name: str) -> dict:
    # WAL lets readers go on while one writer commits; NORMAL sync is safe under WAL and cuts
    # each commit from ~26 ms to ~2.5 ms on this kind of disk. IMMEDIATE takes the write lock
    # when a transaction begins: a deferred transaction that reads and then writes cannot wait
    # for the lock (SQLite answers "database is locked" at once to avoid a deadlock), which is
    # what several experts claiming at the same moment met.
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": name,
        "OPTIONS": {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": SQLITE_BUSY_TIMEOUT,
        },
    }


def _postgres_options(query: str, *, prepared: bool) -> dict:
    """The connection options of a PostgreSQL URL's query (``sslmode=require`` and the like:
    libpq's own, so the same URL serves ``pg_dump``), and how statements are sent.

    ``prepared`` (the default; ``DATABASE_PREPARED_STATEMENTS``): values are sent apart from
    the statement's text (server-side binding), and a statement a connection sends again is
    prepared (from its second run): parsed once, and planned once when PostgreSQL finds its
    generic plan no worse than one for the values. The hot reads are compiled with their
    statuses written in, so that a kept plan can use the partial indexes that name them
    (``config.compiled``).
    Without it, values are written into the text and every statement is planned anew, as a
    pooler in transaction mode that does not carry prepared statements needs.
    """
    options: dict = dict(parse_qsl(query))
    if prepared:
        options.update(server_side_binding=True, prepare_threshold=2)
    return options


def database_from_url(url: str, *, default_sqlite: Path, prepared: bool = True) -> dict:
    """Turn a DATABASE_URL into a Django DATABASES entry (SQLite when the URL is empty)."""
    if not url:
        return _sqlite(str(default_sqlite))
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        # sqlite:///relative.db has path "/relative.db"; sqlite:////abs.db has "//abs.db".
        return _sqlite(
            path[1:] if path.startswith("//") else path.lstrip("/") or str(default_sqlite)
        )
    if parts.scheme in {"postgres", "postgresql", "pgsql"}:
        return {
            "ENGINE": "config.postgresql",
            "NAME": unquote(parts.path.lstrip("/")),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "OPTIONS": _postgres_options(parts.query, prepared=prepared),
            # Kept for good (checked at each request's first use): a new session has none of
            # its statements prepared, so recycling them made every thread plan anew at once.
            "CONN_MAX_AGE": None,
            "CONN_HEALTH_CHECKS": True,
        }
    raise ConfigurationError(f"DATABASE_URL scheme {parts.scheme!r} is not supported")
