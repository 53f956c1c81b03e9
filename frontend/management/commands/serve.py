"""`heartbench serve`: the platform through gunicorn, as production runs it behind a proxy.

Threaded workers (gunicorn's ``gthread``): an expert's request waiting on the database does not
hold up the others in the same process. Static files come from whitenoise inside the app, so
nothing else is needed on a laptop. Ctrl-C (SIGINT) or SIGTERM stops it cleanly: gunicorn lets
the workers finish what they are answering, then exits 0. A worker leaving gives the requests
its threads are still on EXIT_GRACE_SECONDS, then goes without them (``_leave``).

An idle kept-alive connection stays open for KEEP_ALIVE seconds, longer than any client or
proxy in front keeps one idle in its pool (httpx 5 s, nginx's and load balancers' upstream
60 s). Were it shorter, the server could close a connection just as the client reuses it, and
the client would see its request dropped ("Server disconnected"); this way the client is
always the one that lets an idle connection go.

Every thread of a worker is started, and opens its database connection, before the worker
takes its first request (``_connect_every_thread``). gunicorn's thread pool otherwise starts a
thread only when no started one is free, so a crowd arriving at once (hundreds of experts
after a calibration call) met threads starting and PostgreSQL sessions opening, each with none
of its statements prepared, in the very second the crowd arrived (docs/benchmarks.md).
"""

import os
import signal
import sys
import threading
import time
from concurrent import futures

from django.conf import settings
from django.core.management.base import BaseCommand

from config.cli_exits import UsageError
from config.cli_types import port_number, positive_int

KEEP_ALIVE = 75
# Seconds a worker waits at start for its threads' connections, at most (and at most half its
# --timeout: the arbiter restarts a worker silent for longer); then it serves regardless.
CONNECT_AHEAD_SECONDS = 10
# Seconds the arbiter gives its workers to stop before it kills them (SIGKILL).
GRACEFUL_SECONDS = 10
# Seconds a leaving worker waits for the requests its threads are still on.
EXIT_GRACE_SECONDS = 2


def _connect_every_thread(worker) -> None:
    """gunicorn's ``post_worker_init``: start every thread of the worker's pool and open each
    one's database connection. Only where connections are kept between requests
    (``CONN_MAX_AGE``, PostgreSQL's; the embedded SQLite opens one per request). Threads that
    could not connect in time are logged; their requests connect as always."""
    from django.db import connection

    if connection.settings_dict["CONN_MAX_AGE"] == 0:
        return
    threads = worker.cfg.threads
    seconds = min(CONNECT_AHEAD_SECONDS, worker.cfg.timeout / 2)
    # The pool starts a new thread for a task only while every started one is busy: held at
    # the barrier, the tasks take one thread each.
    together = threading.Barrier(threads)

    def connect() -> None:
        together.wait(timeout=seconds)
        connection.ensure_connection()

    tasks = [worker.tpool.submit(connect) for _ in range(threads)]
    done, late = futures.wait(tasks, timeout=seconds)
    errors = [error for error in (task.exception() for task in done) if error is not None]
    if errors or late:
        worker.log.warning(
            "%d of %d threads opened no database connection ahead (%s)",
            len(errors) + len(late),
            threads,
            errors[0] if errors else "no answer in time",
        )


def _stop_listening() -> None:
    """Let every further signal to stop do nothing: the worker is stopping already. (A
    handler that does nothing, not SIG_IGN: Python reports a signal already on its way to an
    ignored handler as an error.)"""
    for stop in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(stop, lambda _signal, _frame: None)


def _leave(_arbiter, worker) -> None:
    """gunicorn's ``worker_exit``, in a worker leaving (Ctrl-C, SIGTERM, a restart): give its
    threads EXIT_GRACE_SECONDS to finish the requests they are on, then exit without them.

    Python's exit otherwise waits for every thread, and a thread waits on its client: 5 s for
    a connection a browser opened ahead and never used, and until the arbiter's SIGKILL
    (GRACEFUL_SECONDS later, "Worker was sent SIGKILL!") for a request whose headers never end.
    """
    if worker.pid != os.getpid():
        return  # the arbiter's own call, for a worker already gone
    _stop_listening()  # another word to stop would raise SystemExit in here, into that wait
    deadline = time.monotonic() + EXIT_GRACE_SECONDS
    others = [
        t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon
    ]
    for thread in others:
        thread.join(max(0.0, deadline - time.monotonic()))
    waiting = sum(thread.is_alive() for thread in others)
    if waiting:
        worker.log.warning("worker %s: left %d thread(s) waiting on a client", worker.pid, waiting)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _gunicorn_application(options: dict):
    # Imported here: every other command starts without gunicorn.
    from gunicorn.app.base import BaseApplication
    from gunicorn.workers.gthread import ThreadWorker

    class Worker(ThreadWorker):
        """gunicorn's threaded worker, told to quit once. Ctrl-C reaches a worker twice, from
        the terminal and from the arbiter (SIGQUIT); the second ``handle_quit``, run inside
        the first, waited forever for the lock the first held in its thread pool's shutdown
        until the arbiter's SIGKILL."""

        def handle_quit(self, sig, frame):
            _stop_listening()
            super().handle_quit(sig, frame)

    class Server(BaseApplication):
        def load_config(self):
            for key, value in {**options, "worker_class": Worker}.items():
                self.cfg.set(key, value)

        def load(self):
            from django.core.wsgi import get_wsgi_application

            return get_wsgi_application()

    return Server()


class Command(BaseCommand):
    help = (
        "Serve the platform with gunicorn (threaded workers, static files by whitenoise). "
        "The same command runs in production behind a reverse proxy; Ctrl-C stops it."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
        parser.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")
        parser.add_argument(
            "--workers",
            type=positive_int,
            default=2,
            help="worker processes (default 2: one per core of a small machine)",
        )
        parser.add_argument(
            "--threads", type=positive_int, default=8, help="threads per worker process (default 8)"
        )
        parser.add_argument(
            "--timeout",
            type=positive_int,
            default=60,
            help="seconds a request may take before its worker is restarted (default 60)",
        )
        parser.add_argument(
            "--access-log", action="store_true", help="log every request to standard output"
        )

    def handle(self, *args, host, port, workers, threads, timeout, access_log, **options):
        if settings.PRODUCTION:
            self._refuse_public_demo_logins()
        database = settings.DATABASES["default"]
        where = "SQLite" if database["ENGINE"].endswith("sqlite3") else "PostgreSQL"
        tasks = "tasks on the broker" if settings.CELERY_BROKER_URL else "tasks in process"
        self.stdout.write(
            f"Serving HeartBench on http://{host}:{port}/ ({workers} workers × {threads} "
            f"threads, {where}, {tasks}); Ctrl-C stops it."
        )
        self.stdout.flush()
        # The workers are forked from this process: they share the URLconf and the views it
        # imports from here, and no connection may cross the fork.
        from django.db import connections

        from config.cli import urls_load

        urls_load()
        connections.close_all()
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        _gunicorn_application(
            {
                "bind": f"{host}:{port}",
                "workers": workers,
                "threads": threads,
                "timeout": timeout,
                "keepalive": KEEP_ALIVE,
                "graceful_timeout": GRACEFUL_SECONDS,
                "accesslog": "-" if access_log else None,
                "errorlog": "-",
                "loglevel": "warning",
                "proc_name": "heartbench",
                "post_worker_init": _connect_every_thread,
                "worker_exit": _leave,
            }
        ).run()

    def _refuse_public_demo_logins(self) -> None:
        """Production never starts while a login has a public demo password. A database that
        cannot be read now is said and not waited for: the server starts and answers 503
        until it is back (config/busy.py), as it would without this check."""
        from django.db import DatabaseError

        from validation.demo import demo_logins_open

        try:
            opened = demo_logins_open()
        except DatabaseError as exc:
            self.stderr.write(f"could not check for public demo logins: {exc}")
            return
        if opened:
            raise UsageError(
                "refusing to start in production (HEARTBENCH_ENV=production): the demo "
                f"logins {', '.join(opened)} have public passwords; run `heartbench "
                "demo-remove` and change the admin's password (heartbench changepassword)"
            )
