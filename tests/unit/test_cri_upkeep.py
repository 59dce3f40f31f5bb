"""The cri runtime's upkeep in pure logic: the watchdog starts containerd again only when it does not
answer; a node range's bridge is named after the cluster's, fits Linux's 15 characters and differs
per range; a failing round of a timer does not end it."""
from __future__ import annotations

import threading

import pytest

from actors.kubelet.cri.cni import conflist, node_bridge
from actors.kubelet.cri.upkeep import every
from actors.kubelet.cri.watchdog import Watchdog


class Daemon:
    endpoint = "/run/kubus/x/containerd.sock"

    def __init__(self, answers: list[bool]):
        self.answers, self.started = answers, 0

    def answering(self) -> bool:
        return self.answers.pop(0)

    def ensure(self) -> None:
        self.started += 1


@pytest.mark.parametrize("answers, restarted", [([True], False), ([False], True)])
def test_the_watchdog_starts_containerd_only_when_it_does_not_answer(answers, restarted):
    daemon = Daemon(answers)
    watchdog = Watchdog(daemon, "node-1")
    assert watchdog.check() is restarted
    assert (daemon.started, watchdog.restarts) == ((1, 1) if restarted else (0, 0))


def test_each_node_range_has_its_own_bridge_named_after_the_clusters():
    names = {node_bridge("kb1234abcd", f"10.130.{i}.0/24") for i in range(50)}
    assert len(names) == 50 and all(n.startswith("kb1234abcd") and len(n) <= 15 for n in names)
    assert conflist(node_bridge("kb1234abcd", "10.130.1.0/24"), "10.130.1.0/24", None)["plugins"][0]["bridge"] \
        == node_bridge("kb1234abcd", "10.130.1.0/24")


def test_a_failing_round_does_not_end_the_timer():
    rounds = []
    done = threading.Event()

    def work():
        rounds.append(1)
        if len(rounds) >= 3:
            done.set()
        raise RuntimeError("containerd went away")

    stop = every(0.01, work, "test")
    try:
        assert done.wait(5)
    finally:
        stop.set()
