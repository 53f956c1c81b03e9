"""Run the suite's two passes at once, one a core, each on its own services.

    python -m tests.passes [PYTEST-ARGS ...]

The SQLite pass (every test but the PostgreSQL-only ones, with Redis) prints as it goes; the
PostgreSQL pass (the tests marked `database`, with PostgreSQL and Redis of its own) writes to a
file that is printed when both have ended. Most of a pass waits on a server, a subprocess or a
socket, so the two side by side take little more than the longer alone. Exit 0 when both
passed; a pass that selected no test (exit 5: a file with no database test) counts as passed
while the other ran tests.
"""

import os
import signal
import subprocess
import sys
import tempfile

NO_TESTS = 5


def commands(pytest_args: list[str]) -> dict[str, list[str]]:
    python = sys.executable
    tail = ["--durations=30", *pytest_args]
    pytest = [python, "-m", "pytest"]
    services = [python, "-m", "tests.services"]
    # The pass's -m first, so that one given in PYTEST-ARGS wins, as pytest takes the last.
    return {
        "SQLite": [*services, "--redis", "--", *pytest, "-m", "not postgres", *tail],
        "PostgreSQL": [*services, "--postgres", "--redis", "--", *pytest, "-m", "database", *tail],
    }


def outcome(codes: dict[str, int]) -> int:
    if all(code == NO_TESTS for code in codes.values()):
        return NO_TESTS
    failed = [code for code in codes.values() if code not in (0, NO_TESTS)]
    return failed[0] if failed else 0


def main(argv: list[str] | None = None) -> int:
    passes = commands(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        # Its own session, so that Ctrl-C here reaches the PostgreSQL pass once, from us.
        postgres = subprocess.Popen(
            passes["PostgreSQL"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            codes = {"SQLite": subprocess.run(passes["SQLite"]).returncode}
            codes["PostgreSQL"] = postgres.wait()
        except KeyboardInterrupt:
            os.killpg(postgres.pid, signal.SIGINT)
            postgres.wait()
            return 130
        log.seek(0)
        print(f"\n{'=' * 30} the PostgreSQL pass {'=' * 30}", flush=True)
        sys.stdout.write(log.read())
    return outcome(codes)


if __name__ == "__main__":
    sys.exit(main())
