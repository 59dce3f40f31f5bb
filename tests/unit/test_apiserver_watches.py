"""The apiserver's table of people's watches (actors.apiserver.watches), on a fake broker: the
bounds per person, forgetting a watch only when the broker says its queue is gone, and a queue
declared again losing the keys it no longer asks for."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from actors.apiserver import watches as watches_module
from actors.apiserver.authz.rules import Attributes, UserInfo
from actors.apiserver.watches import WatchBounds, Watches
from api.status import StatusError
from bus.topology import Names

ALICE = UserInfo("alice")
NAMES = Names("t")


class Broker:
    """Queues and their bindings, and a channel that answers at once."""

    def __init__(self):
        self.queues: dict[str, set[str]] = {}
        self.is_open = True
        self.unreachable = False  # a side channel closes without the broker saying why

    # the main channel
    def queue_declare(self, name, callback=None, **_kw):
        self.queues.setdefault(name, set())
        callback and callback(None)

    def queue_bind(self, name, _exchange, routing_key, callback=None):
        self.queues[name].add(routing_key)
        callback and callback(None)

    def queue_unbind(self, name, _exchange, routing_key, callback=None):
        self.queues[name].discard(routing_key)
        callback and callback(None)


class SideChannel:
    def __init__(self, broker: Broker):
        self.broker, self.closed = broker, []

    def add_on_close_callback(self, callback):
        self.closed.append(callback)

    def queue_declare(self, name, passive, callback):
        if name in self.broker.queues and not self.broker.unreachable:
            callback(None)
            return
        reason = SimpleNamespace(reply_code=None if self.broker.unreachable else 404)
        for on_close in self.closed:
            on_close(self, reason)

    def close(self):
        pass


class Bus:
    def __init__(self, broker: Broker):
        self.channel = broker
        self.timers = []

    def side_channel(self, on_open):
        on_open(SideChannel(self.channel))

    def call_later(self, delay, fn):
        self.timers.append(fn)
        return fn


@pytest.fixture
def broker(monkeypatch):
    monkeypatch.setattr(watches_module, "RECOUNT_S", 0.0)
    return Broker()


def table(broker: Broker, watches: int = 2, keys: int = 10) -> Watches:
    return Watches(Bus(broker), NAMES, watches_module.Bounds(), lambda _a: True, WatchBounds(watches, keys))


def watch(table: Watches, name: str, keys: list[str]) -> str | StatusError:
    """`ok`, or the refusal."""
    answer = []
    queue = NAMES.watch_prefix(ALICE.name) + name
    table.set_up(ALICE, queue, keys, [Attributes(ALICE, "watch", "pods")], lambda: answer.append("ok"), answer.append)
    return answer[0]


def test_a_queue_declared_again_loses_the_keys_it_no_longer_asks_for(broker):
    watches = table(broker)
    assert watch(watches, "q", ["pod.team-a.*", "pod.team-b.*"]) == "ok"
    assert watch(watches, "q", ["pod.team-b.*"]) == "ok"
    assert broker.queues[NAMES.watch_prefix("alice") + "q"] == {"pod.team-b.*"}


def test_over_the_bound_is_429_until_a_queue_has_gone(broker):
    watches = table(broker, watches=2)
    assert watch(watches, "one", ["pod.a.*"]) == watch(watches, "two", ["pod.a.*"]) == "ok"
    refused = watch(watches, "three", ["pod.a.*"])
    assert (refused.reason, refused.code) == ("TooManyRequests", 429)
    assert refused.message == 'Too many requests: user "alice" has 2 watches open, the most an apiserver keeps ' \
                              'for one user; close some first'
    assert watch(watches, "one", ["pod.b.*"]) == "ok"  # declaring one of one's own again is no new watch
    del broker.queues[NAMES.watch_prefix("alice") + "one"]  # its person went away
    assert watch(watches, "three", ["pod.a.*"]) == "ok"


def test_the_keys_of_a_persons_watches_are_bounded_together(broker):
    watches = table(broker, watches=10, keys=3)
    assert watch(watches, "one", ["pod.a.*", "pod.b.*"]) == "ok"
    refused = watch(watches, "two", ["pod.c.*", "pod.d.*"])
    assert refused.message == 'Too many requests: the watches of user "alice" would bind 4 keys, more than the 3 ' \
                              'an apiserver keeps for one user'


def test_a_watch_is_forgotten_only_when_the_broker_says_its_queue_is_gone(broker):
    watches = table(broker, watches=1)
    assert watch(watches, "one", ["pod.a.*"]) == "ok"
    broker.unreachable = True  # no answer: the watch may still run, RBAC must still be able to end it
    assert isinstance(watch(watches, "two", ["pod.a.*"]), StatusError)
    assert list(watches.live) == [NAMES.watch_prefix("alice") + "one"]


def test_the_sweep_forgets_every_gone_queue_and_stops_when_none_is_left(broker):
    watches = table(broker)
    watch(watches, "one", ["pod.a.*"])
    broker.queues.clear()
    sweep = watches.bus.timers.pop()
    sweep()
    assert watches.live == {} and watches.bus.timers == []
