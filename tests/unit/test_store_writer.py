"""The store's database calls stay one at a time and in order: a commit runs on the caller's thread
only when the writer thread has nothing, else behind what it has."""
from __future__ import annotations

import threading

import pytest

from store.writer import SLOW_FOR_S, SLOW_S, Writer


@pytest.fixture
def writer():
    w = Writer()
    yield w
    w.shutdown()


def test_with_nothing_queued_a_call_runs_at_once_on_the_callers_thread(writer):
    done = writer.now_or_queued(threading.get_ident)
    assert done.done() and done.result() == threading.get_ident()


def test_a_call_waits_behind_what_the_writer_thread_has(writer):
    release, order = threading.Event(), []
    first = writer.submit(lambda: (release.wait(10), order.append("queued first")))
    second = writer.now_or_queued(lambda: (order.append("then this"), threading.get_ident())[1])
    assert not second.done()
    release.set()
    assert second.result(10) != threading.get_ident() and first.result(10)
    assert order == ["queued first", "then this"]


def test_once_the_writer_thread_is_done_calls_run_at_once_again(writer):
    writer.submit(lambda: None).result(10)
    assert writer.now_or_queued(lambda: "ok").done()


def test_a_failing_call_fails_its_future_wherever_it_ran(writer):
    def fail():
        raise OSError("disk I/O error")

    with pytest.raises(OSError, match="disk"):
        writer.now_or_queued(fail).result()
    release = threading.Event()
    writer.submit(release.wait, 10)
    queued = writer.now_or_queued(fail)
    release.set()
    with pytest.raises(OSError, match="disk"):
        queued.result(10)


def test_after_a_slow_call_calls_go_to_the_writer_thread_for_a_while():
    now = [100.0]
    w = Writer(clock=lambda: now[0])

    def slow():
        now[0] += SLOW_S * 2  # the disk stalled
        return threading.get_ident()

    try:
        assert w.now_or_queued(slow).result() == threading.get_ident()
        assert w.now_or_queued(threading.get_ident).result(10) != threading.get_ident()
        now[0] += SLOW_FOR_S
        assert w.now_or_queued(threading.get_ident).result() == threading.get_ident()
    finally:
        w.shutdown()
