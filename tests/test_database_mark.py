"""The `database` mark of tests/conftest.py: the PostgreSQL pass of `make test` runs only the
tests it marks, so it must mark every test that can reach a database, and a test it leaves
unmarked must not reach one unnoticed."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NO_DATABASE_URL, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parents[1]
CONNECT = """
import os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from django.db import connection
connection.ensure_connection()
"""


class Item:
    """What pytest_collection_modifyitems reads of a collected test, and the marks it adds."""

    def __init__(self, fixtures: tuple, marks: tuple):
        self.fixturenames = list(fixtures)
        self.marks = set(marks)

    def get_closest_marker(self, name: str):
        return name if name in self.marks else None

    def add_marker(self, mark) -> None:
        self.marks.add(mark.name)


@pytest.mark.parametrize(
    ("fixtures", "marks", "expected"),
    [
        ((), (), set()),
        (("tmp_path", "monkeypatch"), (), set()),
        (("db",), (), {"database"}),
        (("transactional_db",), (), {"database"}),
        (("live_server",), (), {"database"}),
        (("product",), (), {"database"}),
        ((), ("django_db",), {"django_db", "database"}),
        ((), ("postgres",), {"postgres", "database"}),
        (("on_postgres", "db"), (), {"postgres", "database"}),
    ],
)
def test_what_can_reach_a_database_is_marked(fixtures, marks, expected):
    item = Item(fixtures, marks)
    pytest_collection_modifyitems(None, [item])
    assert item.marks == expected


def test_a_process_an_unmarked_test_starts_cannot_use_a_database():
    assert os.environ["DATABASE_URL"] == NO_DATABASE_URL
    done = subprocess.run(
        [sys.executable, "-c", CONNECT],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "needs-the-database-mark" in done.stderr, done.stderr[-2000:]


def test_a_marked_test_keeps_the_database_of_its_pass(db):
    assert os.environ.get("DATABASE_URL") != NO_DATABASE_URL
