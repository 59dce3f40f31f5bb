"""Every call on the store's database, one at a time and in order: on the writer thread, or — a
commit with nothing queued before it, while commits are quick — at once on the caller's thread.

The writer thread lets the ioloop go on while a commit runs. Handing each commit over and back (a
future, a queue, a wake-up pipe and the GIL, twice) cost a store 12% of its CPU per write at 64
writers, more than the overlap gained (bench.store: +9% writes/s with commits on the ioloop,
bench.scheduler unchanged). So a commit runs on the calling thread when the writer thread is idle;
anything queued (a compaction, a replicated store's commits) keeps its place. An actor's ioloop must
not block its connection for long (DESIGN.md, actor runtime): once a commit takes longer than
`SLOW_S` — a stalling disk — commits go to the writer thread for `SLOW_FOR_S`.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

SLOW_S = 0.05
SLOW_FOR_S = 10.0


class Writer:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="store-writer")
        self._lock = threading.Lock()
        self._queued = 0  # submitted and not finished; under _lock
        self._clock = clock
        self._threaded_until = 0.0  # after a slow commit, commits go to the thread until then

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` on the writer thread, behind everything submitted before."""
        with self._lock:
            self._queued += 1
        try:
            return self._pool.submit(self._run, fn, args)
        except BaseException:
            with self._lock:
                self._queued -= 1
            raise

    def now_or_queued(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` at once on this thread when the writer thread has nothing to do and the last
        such call was quick (the future comes back done); else behind what the thread has."""
        with self._lock:
            idle = not self._queued
        if not idle or self._clock() < self._threaded_until:
            return self.submit(fn, *args)
        done: Future = Future()
        started = self._clock()
        try:
            done.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - the caller reads it from the future, as from the thread's
            done.set_exception(exc)
        if self._clock() - started > SLOW_S:
            self._threaded_until = self._clock() + SLOW_FOR_S
        return done

    def _run(self, fn: Callable[..., Any], args: tuple) -> Any:
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._queued -= 1

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)
