"""Run an asyncio job in a worker thread while its blocking calls run in the caller's thread.

Django's ORM is synchronous and bound to the thread's connection (and, in tests, to the test's
transaction). The engine's event loop therefore runs in a helper thread and hands every
database call back to the thread that started it, which executes them one at a time. Calls that
queue up while one runs are executed together inside ``batch()`` (a transaction: one commit
for many small writes, which is what bounds throughput on SQLite, where each commit is an
fsync). Results are handed back only after the batch is committed, so the job never sees a
write as done before it is durable. The job speaks the caller's active language: what it words
for a person (a rubric rule's reason, say) reads as the caller's own lines do. Ctrl-C in the
caller cancels the job; calls already queued (the final checkpoint) still run.
"""

import asyncio
import contextlib
import queue
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from django.utils import translation

T = TypeVar("T")
CallSync = Callable[[Callable[[], Any]], Awaitable[Any]]
MAX_BATCH = 64


def run_bridged(
    job: Callable[[CallSync], Awaitable[T]],
    *,
    batch: Callable[[], AbstractContextManager] = contextlib.nullcontext,
) -> T:
    """Run ``job(call_sync)`` to completion; ``await call_sync(fn)`` runs ``fn()`` here."""
    calls: queue.Queue = queue.Queue()
    outcome: dict[str, Any] = {}
    state: dict[str, Any] = {}

    async def call_sync(fn: Callable[[], Any]) -> Any:
        future = asyncio.get_running_loop().create_future()
        calls.put((fn, future))
        return await future

    async def main() -> T:
        state["loop"] = asyncio.get_running_loop()
        state["task"] = asyncio.current_task()
        return await job(call_sync)

    language = translation.get_language()

    def worker() -> None:
        try:
            with translation.override(language):
                outcome["value"] = asyncio.run(main())
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            calls.put(None)

    thread = threading.Thread(target=worker, name="heartbench-engine", daemon=True)
    thread.start()
    interrupted: BaseException | None = None
    finished = False
    while not finished:
        try:
            items = [calls.get(timeout=0.2)]
        except queue.Empty:
            continue
        except KeyboardInterrupt as exc:
            interrupted = exc
            if "loop" in state:
                state["loop"].call_soon_threadsafe(state["task"].cancel)
            continue
        while items[-1] is not None and len(items) < MAX_BATCH:
            try:
                items.append(calls.get_nowait())
            except queue.Empty:
                break
        if items[-1] is None:
            finished = True
            items.pop()
        _run_batch(items, batch)
    thread.join()
    if interrupted is not None:
        raise interrupted
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _run_batch(items: list, batch: Callable[[], AbstractContextManager]) -> None:
    settled: list[tuple[asyncio.Future, Any, BaseException | None]] = []
    try:
        with batch():
            for fn, future in items:
                try:
                    settled.append((future, fn(), None))
                except Exception as exc:
                    settled.append((future, None, exc))
    except Exception as exc:  # the batch itself failed to commit: nothing in it is done
        settled = [(future, None, exc) for _, future in items]
    for future, value, error in settled:
        with contextlib.suppress(RuntimeError):  # the job already ended and closed its loop
            future.get_loop().call_soon_threadsafe(_settle, future, value, error)


def _settle(future: asyncio.Future, value: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)
