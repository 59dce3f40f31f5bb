"""The gateway's login throttle, on a fake clock: free attempts, then a doubling wait; attempts in
flight count; a success clears; quiet keys are forgotten; the table stays bounded."""
from __future__ import annotations

import pytest

from actors.gateway.throttle import Throttle


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def throttle(allowed: int = 3, capacity: int = 100) -> tuple[Throttle, Clock]:
    clock = Clock()
    return Throttle(allowed, first_s=1.0, max_s=8.0, capacity=capacity, clock=clock), clock


def refuse(t: Throttle, key: str, times: int) -> None:
    for _ in range(times):
        assert t.wait(key) == 0.0
        t.begin(key)
        t.done(key, False)


@pytest.mark.parametrize("refusals, wait", [
    pytest.param(2, 0.0, id="under-the-limit"),
    pytest.param(3, 1.0, id="the-last-free-refusal-starts-the-wait"),
])
def test_refusals_up_to_the_limit_are_free(refusals, wait):
    t, _clock = throttle()
    refuse(t, "alice", refusals)
    assert t.wait("alice") == wait
    assert t.wait("bob") == 0.0  # keys are apart


def test_each_further_refusal_doubles_the_wait_up_to_the_most():
    t, clock = throttle()
    refuse(t, "alice", 3)
    waits = []
    for _ in range(5):
        clock.now += t.wait("alice")
        refuse(t, "alice", 1)
        waits.append(t.wait("alice"))
    assert waits == [2.0, 4.0, 8.0, 8.0, 8.0]


def test_attempts_in_flight_count_before_they_are_answered():
    t, _clock = throttle()
    for _ in range(3):
        assert t.wait("10.0.0.9") == 0.0
        t.begin("10.0.0.9")
    assert t.wait("10.0.0.9") == 1.0  # a flood is held back while its first attempts are out
    t.done("10.0.0.9", None)  # the broker did not answer: neither a success nor a refusal
    assert t.wait("10.0.0.9") == 0.0


def test_a_success_clears_the_key():
    t, _clock = throttle()
    refuse(t, "alice", 2)
    t.begin("alice")
    t.done("alice", True)
    refuse(t, "alice", 2)
    assert t.wait("alice") == 0.0


def test_a_quiet_key_is_forgotten_and_the_table_stays_bounded():
    t, clock = throttle(capacity=4)
    refuse(t, "alice", 3)
    clock.now += 9.0  # past the wait and quiet for longer than the longest wait
    assert t.wait("alice") == 0.0 and "alice" not in t._keys
    for name in ("a", "b", "c", "d", "e", "f"):
        refuse(t, name, 1)
    assert len(t._keys) <= 4 and "f" in t._keys
