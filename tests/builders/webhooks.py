"""Webhook endpoints for tests, and pausing or flushing the in-process sender."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from webhooks.dispatch import IN_PROCESS
from webhooks.models import Endpoint

SECRET = "s3cret-for-the-tests-0123456789"


def endpoint_for(receiver_or_url, *, events=None, **fields) -> Endpoint:
    url = getattr(receiver_or_url, "url", receiver_or_url)
    options = {"events": events} if events is not None else {}
    return Endpoint.objects.create(
        name=fields.pop("name", url), url=url, secret=SECRET, **options, **fields
    )


def sent() -> None:
    """Wait until the in-process sender has sent (or given up on) everything queued."""
    assert IN_PROCESS.wait(timeout=30), "webhook deliveries still pending after 30 s"


@contextmanager
def sender_paused() -> Iterator[None]:
    """Hold the in-process sender (one thread) until the block ends, so the test's own
    database work never meets the sender's: SQLite's shared in-memory test database answers
    "table is locked" at once where a real database file waits its busy timeout."""
    gate = threading.Event()
    IN_PROCESS.pool.submit(gate.wait)
    try:
        yield
    finally:
        gate.set()
