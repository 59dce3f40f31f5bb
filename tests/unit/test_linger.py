"""How long an apiserver holds a command batch for company, as pure logic over a fake clock."""
from __future__ import annotations

import pytest

from actors.apiserver.linger import AIM, FORGET_EVERY, MOST_S, OVERLAP_S, TAU_S, Linger


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _linger() -> tuple[Linger, Clock]:
    clock = Clock()
    return Linger(clock), clock


def _send(linger: Linger, clock: Clock, senders: list[str], per_s: float, seconds: float, run: int = 1,
          overlap: bool = False) -> None:
    """`per_s` commands a second in all, the senders taking turns every `run` commands; each command
    leaves before the next comes, or (`overlap`) after it."""
    last = None
    for i in range(int(per_s * seconds)):
        clock.now += 1 / per_s
        sender = senders[i // run % len(senders)]
        linger.arrived(sender)
        if overlap and last is not None:
            linger.left(last)
        elif not overlap:
            linger.left(sender)
        last = sender


def test_one_sender_alone_is_never_held_however_fast_it_writes():
    linger, clock = _linger()
    _send(linger, clock, ["loop"], 5000, 3 * TAU_S)
    assert linger.hold("loop") == 0.0


def test_a_sender_that_does_not_wait_for_its_answers_is_held_for_its_own_commands():
    linger, clock = _linger()
    _send(linger, clock, ["hollow-kubelet"], 1000, 10 * TAU_S, overlap=True)
    assert linger.hold("hollow-kubelet") == pytest.approx((AIM - 1) / 1000, rel=0.05)


def test_a_sender_that_waits_for_its_answers_again_is_not_held_once_its_overlaps_are_old():
    linger, clock = _linger()
    _send(linger, clock, ["client"], 1000, 10 * TAU_S, overlap=True)
    linger.left("client")
    _send(linger, clock, ["client"], 1000, OVERLAP_S * 0.9)
    assert linger.hold("client") > 0
    _send(linger, clock, ["client"], 1000, OVERLAP_S * 0.2)
    assert linger.hold("client") == 0.0


def test_a_hold_gathers_about_aim_commands_of_the_others():
    linger, clock = _linger()
    _send(linger, clock, ["node-a", "node-b", "node-c"], 1000, 10 * TAU_S)
    others = 1000 * 2 / 3
    assert linger.hold("node-a") == pytest.approx((AIM - 1) / others, rel=0.05)


def test_senders_sending_in_runs_count_as_much_as_senders_taking_turns():
    linger, clock = _linger()
    _send(linger, clock, ["kubelet", "scheduler"], 1000, 10 * TAU_S, run=50)
    assert linger.hold("kubelet") == MOST_S


def test_the_hold_is_at_most_most_s():
    linger, clock = _linger()
    _send(linger, clock, ["node-a", "node-b"], 2 * 1.2 / MOST_S, 10 * TAU_S)
    assert linger.hold("node-a") == MOST_S


def test_others_too_far_apart_to_come_within_most_s_are_not_waited_for():
    linger, clock = _linger()
    _send(linger, clock, ["node-a", "node-b"], 2 * 0.8 / MOST_S, 10 * TAU_S)
    assert linger.hold("node-a") == 0.0


def test_a_new_sender_waits_for_the_busy_ones():
    linger, clock = _linger()
    _send(linger, clock, ["node-a", "node-b"], 1000, 10 * TAU_S)
    linger.arrived("kubectl")
    assert linger.hold("kubectl") == pytest.approx((AIM - 1) / 1000, rel=0.05)


def test_the_hold_ends_soon_after_the_others_go_quiet():
    linger, clock = _linger()
    _send(linger, clock, ["node-a", "node-b"], 2000, 10 * TAU_S)
    assert linger.hold("node-a") > 0
    clock.now += 3 * TAU_S
    assert linger.hold("node-a") == 0.0


def test_senders_gone_quiet_are_forgotten():
    linger, clock = _linger()
    _send(linger, clock, [f"kubectl-{i}" for i in range(FORGET_EVERY)], 100, FORGET_EVERY / 100)
    clock.now += 10 * TAU_S
    _send(linger, clock, ["node-a"], 100, FORGET_EVERY / 100)
    assert set(linger.senders) == {"node-a"}


def test_a_sender_with_commands_here_is_not_forgotten():
    linger, clock = _linger()
    linger.arrived("slow")
    clock.now += 10 * TAU_S
    _send(linger, clock, ["node-a"], 100, FORGET_EVERY / 100)
    assert set(linger.senders) == {"node-a", "slow"}
    linger.arrived("slow")
    assert linger.senders["slow"].overlapped == clock.now
