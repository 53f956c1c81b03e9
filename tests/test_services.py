"""The test harness itself: a real PostgreSQL comes up from the installed binaries."""

import shutil

import psycopg
import pytest

from tests.conftest import require
from tests.services import postgres


@pytest.mark.slow
def test_temporary_postgres_accepts_connections_on_loopback():
    require(shutil.which("initdb") is not None, "initdb is not installed")
    with postgres() as url:
        assert "@127.0.0.1:" in url
        with psycopg.connect(url) as conn:
            assert conn.execute("select 1 + 1").fetchone() == (2,)


@pytest.mark.slow
def test_statements_loads_pg_stat_statements_for_the_benchmarks():
    require(shutil.which("initdb") is not None, "initdb is not installed")
    with postgres(statements=True) as url, psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pg_stat_statements")
        conn.execute("SELECT 40 + 2").fetchone()
        calls = conn.execute(
            "SELECT sum(calls) FROM pg_stat_statements WHERE query LIKE 'SELECT $1 + $2%'"
        ).fetchone()
        assert calls == (1,)
