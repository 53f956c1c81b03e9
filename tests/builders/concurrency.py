"""Holding a transaction open in another thread, to race a request against it."""

import threading

from django.db import connections, transaction


def hold_open(work, done: threading.Event, release: threading.Event) -> threading.Thread:
    """Run ``work`` in a transaction of its own in another thread, set ``done``, and keep the
    transaction open until ``release`` (at most 10 s)."""

    def run() -> None:
        try:
            with transaction.atomic():
                work()
                done.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread
