"""The exit status of every `heartbench` command: one table (README, "Exit status").

A command that refuses its command line, its configuration or a name it was given (an
unknown dataset, run, study or expert) raises ``UsageError`` and writes nothing; one that ran
but could not do all of it raises ``CommandError`` with ``EXIT_ERRORS``. A test walks the
table (tests/benchmark/test_exit_status.py), and one reads every command for a
``CommandError`` that names no status, which would exit 1 as if work had been done.
"""

from django.core.management.base import CommandError

EXIT_DONE = 0  # done (also: nothing was left to do)
EXIT_ERRORS = 1  # finished, but some of the work ended in error (kept, with the reason)
EXIT_CONFIG = 2  # bad command line, configuration or name: nothing was sent or written
EXIT_STOPPED = 3  # stopped before the end (budget); the same command continues
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


class UsageError(CommandError):
    """Refused before any work: exit status 2 (``EXIT_CONFIG``)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("returncode", EXIT_CONFIG)
        super().__init__(*args, **kwargs)
