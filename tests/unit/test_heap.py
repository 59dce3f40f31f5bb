"""runtime.heap's collection policy, on this process's own collector (restored after each test)."""
from __future__ import annotations

import gc
import weakref

import pytest

from runtime import heap


class Node:
    pass


@pytest.fixture
def policy():
    clock = [0.0]
    installed = heap._FreezeAfterFull(clock=lambda: clock[0])
    gc.callbacks.append(installed)
    try:
        yield installed, clock
    finally:
        gc.callbacks.remove(installed)
        gc.unfreeze()


def _cycle() -> weakref.ref:
    """A garbage cycle: only the collector can free it."""
    node = Node()
    node.me = node
    return weakref.ref(node)


def test_what_survives_a_full_collection_is_frozen(policy):
    gc.collect()
    assert gc.get_freeze_count() > 0
    gone = _cycle()
    gc.collect()
    assert gone() is None  # young garbage still goes


def test_frozen_garbage_cycles_go_once_the_frozen_set_doubled_and_time_passed(policy):
    _, clock = policy
    gc.collect()
    node = Node()
    node.me = node
    kept = weakref.ref(node)
    grown = [Node() for _ in range(2 * gc.get_freeze_count())]
    gc.collect()  # the cycle, still referenced, is frozen with the growth
    del node  # garbage from here on, referenced only by itself
    gc.collect()
    assert kept() is not None  # frozen: not scanned
    clock[0] = heap.THAW_EVERY_S - 1
    gc.collect()
    gc.collect()
    assert kept() is not None  # doubled, but too soon after the last thaw
    clock[0] = heap.THAW_EVERY_S
    gc.collect()  # thaws
    gc.collect()  # scans everything once
    assert kept() is None
    del grown


def test_configure_sets_the_thresholds_and_installs_the_policy_once():
    thresholds, callbacks = gc.get_threshold(), list(gc.callbacks)
    try:
        heap.configure()
        heap.configure()
        assert gc.get_threshold() == heap.THRESHOLDS
        assert sum(isinstance(cb, heap._FreezeAfterFull) for cb in gc.callbacks) == 1
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks[:] = callbacks


def test_each_collection_is_timed_by_generation_once_metrics_time_them():
    from runtime import metrics

    def count(generation: str) -> float:
        return next(s.value for m in metrics.GC_SECONDS.collect() for s in m.samples
                    if s.name.endswith("_count") and s.labels["generation"] == generation)

    callbacks = list(gc.callbacks)
    try:
        metrics.time_collections()
        metrics.time_collections()
        before = count("2")
        gc.collect()
        gc.collect()
        assert count("2") == before + 2  # one observation each: timed by one callback
    finally:
        gc.callbacks[:] = callbacks
