"""`kubus up` restarts a crashed actor at once the first time (a warm start takes milliseconds, so
a crashed store serves again within a second), then backs off, 1 s doubling to 30 s, until a long
healthy run forgives it (pure: no process starts)."""
from __future__ import annotations

import io

import pytest

from config.cluster import ActorSpec
from runtime.supervisor import BACKOFF_MAX_S, HEALTHY_AFTER_S, Supervisor


class Exited:
    def __init__(self, code: int | None):
        self.code, self.pid = code, 4242

    def poll(self) -> int | None:
        return self.code


def supervisor() -> tuple[Supervisor, list[float]]:
    sup = Supervisor([ActorSpec(name="store", module="store")], {}, out=io.StringIO())
    starts: list[float] = []
    sup.start = lambda child: (starts.append(child.restart_at), setattr(child, "proc", Exited(None)))
    return sup, starts


def crash_and_restart(sup: Supervisor, now: float) -> float:
    """The child crashes at `now`; the delay before it is started again."""
    child = sup.children[0]
    child.proc = Exited(-9)
    sup.check(child, now)
    assert child.proc is None
    sup.check(child, child.restart_at)
    return child.restart_at - now


@pytest.mark.parametrize("crashes, delays", [
    pytest.param(1, [0.0], id="first-at-once"),
    pytest.param(4, [0.0, 1.0, 2.0, 4.0], id="then-backoff"),
    pytest.param(9, [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, BACKOFF_MAX_S, BACKOFF_MAX_S, BACKOFF_MAX_S], id="capped"),
])
def test_restarts_back_off_after_the_first(crashes, delays):
    sup, _ = supervisor()
    assert [crash_and_restart(sup, 100.0 * i) for i in range(crashes)] == delays


def test_a_long_healthy_run_forgives_earlier_crashes():
    sup, _ = supervisor()
    child = sup.children[0]
    for i in range(3):
        crash_and_restart(sup, float(i))
    child.started = 10.0
    sup.check(child, 10.0 + HEALTHY_AFTER_S + 1)  # still running, long enough
    assert crash_and_restart(sup, 200.0) == 0.0
    assert "store exited with -9; restarting in 0s (restart 4)" in sup.out.getvalue()
