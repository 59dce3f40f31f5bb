"""Every call on the store's database, one at a time and in order: on the writer thread, or — a
commit with nothing queued before it — at once on the caller's thread.

The writer thread lets the ioloop read the next batch while a commit runs. Handing each commit over
and back (a future, a queue, a wake-up pipe and the GIL, twice) cost a store 12% of its CPU per
write at 64 writers, more than the overlap gained (bench.store: +9% writes/s with commits on the
ioloop, bench.scheduler unchanged). So a commit runs on the calling thread when the writer thread is
idle and nothing waits for it; anything queued (a compaction, a replicated commit) keeps its place.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable


class Writer:
    def __init__(self):
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="store-writer")
        self._lock = threading.Lock()
        self._queued = 0  # submitted and not finished; under _lock

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` on the writer thread, behind everything submitted before."""
        with self._lock:
            self._queued += 1
        return self._pool.submit(self._run, fn, args)

    def now_or_queued(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` at once on this thread when the writer thread has nothing to do (the future
        comes back done), else behind what it has."""
        with self._lock:
            idle = not self._queued
        if not idle:
            return self.submit(fn, *args)
        done: Future = Future()
        try:
            done.set_result(fn(*args))
        except Exception as exc:  # noqa: BLE001 - the caller reads it from the future, as from the thread's
            done.set_exception(exc)
        return done

    def _run(self, fn: Callable[..., Any], args: tuple) -> Any:
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._queued -= 1

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)
