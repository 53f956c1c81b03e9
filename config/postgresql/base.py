"""Django's PostgreSQL backend whose health check sends nothing to a quiet connection.

Django checks a kept connection (``CONN_HEALTH_CHECKS``) at its first use in every request
with ``SELECT 1``: a round trip per request, one in eight of an expert request's statements
(docs/benchmarks.md). A connection the server ended (a restart, ``pg_terminate_backend``, a
crash) has something to read before any query is sent: the server's FATAL message or the
socket's end. So an idle connection with nothing to read is taken as healthy; anything else,
and a connection inside a transaction, gets Django's ``SELECT 1``. A connection cut without a
word (a network partition) is found by neither check before its TCP timeout.
"""

import select

from django.db.backends.postgresql import base
from psycopg import pq

WORD_FROM_SERVER = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and self._quiet()
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Idle, open, and the server has sent nothing since its last answer."""
        raw = self.connection
        if raw.closed or raw.info.transaction_status != pq.TransactionStatus.IDLE:
            return False
        poller = select.poll()
        poller.register(raw.fileno(), WORD_FROM_SERVER)
        return not poller.poll(0)
