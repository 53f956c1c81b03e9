"""`python -m tests.passes`, the README's test command: both passes at once, one verdict."""

import pytest

from tests.passes import NO_TESTS, commands, outcome


@pytest.mark.parametrize(
    ("codes", "verdict"),
    [
        ((0, 0), 0),
        ((0, NO_TESTS), 0),  # a file with no database test: the PostgreSQL pass selects none
        ((NO_TESTS, 0), 0),
        ((NO_TESTS, NO_TESTS), NO_TESTS),  # nothing ran at all is not a pass
        ((1, 0), 1),
        ((0, 1), 1),
        ((NO_TESTS, 2), 2),
        ((0, 130), 130),
    ],
)
def test_both_passes_must_pass_and_at_least_one_must_run_tests(codes, verdict):
    assert outcome(dict(zip(("SQLite", "PostgreSQL"), codes, strict=True))) == verdict


def test_each_pass_gets_its_own_services_and_its_selection():
    passes = commands(["-k", "leaderboard"])
    sqlite, postgres = passes["SQLite"], passes["PostgreSQL"]
    assert sqlite[sqlite.index("--") - 1] == "--redis" and "--postgres" not in sqlite
    assert postgres[postgres.index("--") - 2 : postgres.index("--")] == ["--postgres", "--redis"]
    assert sqlite[-5:] == ["-m", "not postgres", "--durations=30", "-k", "leaderboard"]
    assert postgres[-5:] == ["-m", "database", "--durations=30", "-k", "leaderboard"]
