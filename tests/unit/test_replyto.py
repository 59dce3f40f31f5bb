"""The node a direct reply-to address names, and which nodes an actor's own connection may answer."""
from __future__ import annotations

import base64

import pytest

from bus.replyto import BAD_S, PROBE_WAIT_S, REMEMBERED, Probes, TrustedNodes, node_of

SEEN = "amq.rabbitmq.reply-to.g1h2AA1yZXBseUA5MjQ4ODg0AAAZ3AAAAAFrCAjA.ga6wik+BQ6Xp/YXA30OHmw=="  # RabbitMQ 3.10.8


def address(pid: bytes, key: str = "k3y") -> str:
    return f"amq.rabbitmq.reply-to.{base64.b64encode(pid).decode()}.{key}"


def test_a_v2_address_names_its_node_by_hash():
    assert node_of(SEEN) == "reply@9248884"


def test_a_v1_address_names_its_node():
    pid = bytes([131, 103, 100, 0, 11]) + b"rabbit@host" + bytes(9)  # PID_EXT, ATOM_EXT
    assert node_of(address(pid)) == "rabbit@host"


@pytest.mark.parametrize("bad", ["", "amq.rabbitmq.reply-to", "amq.rabbitmq.reply-to.!!!.key", "some.queue",
                                 address(b"\x83h\x00"), address(bytes([131, 88, 118, 0, 40]) + b"short"),
                                 address(bytes([131, 88, 118, 0, 0]))])
def test_an_address_naming_no_node_is_none(bad):
    assert node_of(bad) is None


def test_a_node_is_trusted_once_answered_and_forgotten_on_demand():
    nodes = TrustedNodes()
    other = address(bytes([131, 88, 118, 0, 7]) + b"reply@1" + bytes(12))
    assert not nodes.covers(SEEN)
    nodes.trust(SEEN)
    assert nodes.covers(SEEN) and not nodes.covers(other)
    nodes.forget()
    assert not nodes.covers(SEEN)


def test_unreadable_addresses_are_never_trusted():
    nodes = TrustedNodes()
    nodes.trust("amq.rabbitmq.reply-to.!!!.key")
    assert nodes.nodes == set() and not nodes.covers("amq.rabbitmq.reply-to.!!!.key")


def test_remembered_addresses_stay_bounded():
    nodes = TrustedNodes()
    nodes.trust(SEEN)
    for i in range(REMEMBERED + 10):
        nodes.covers(f"amq.rabbitmq.reply-to.x{i}.k")
    assert node_of.cache_info().currsize <= REMEMBERED and nodes.covers(SEEN)


def at(node: str) -> str:
    name = node.encode()
    return address(bytes([131, 88, 118, 0, len(name)]) + name + bytes(12))


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


def drain(probes: Probes, unconfirmed: int = 0) -> list:
    taken = []
    while (item := probes.take(unconfirmed)) is not None:
        taken.append(item)
    return taken


def test_a_node_is_probed_alone_and_its_confirm_lets_its_others_go():
    probes = Probes(TrustedNodes())
    for address, item in ((at("reply@1"), "a1"), (at("reply@1"), "a2"), (at("reply@2"), "b1")):
        probes.add(address, item)
    assert drain(probes) == ["a1"]  # node 1's probe, and nothing beside it
    probes.confirmed(at("reply@1"))
    assert drain(probes) == ["a2", "b1"]  # node 1's other, then node 2's probe
    probes.add(at("reply@1"), "a3")
    assert drain(probes) == []  # trusted, but node 2's probe is out
    probes.confirmed(at("reply@2"))
    assert drain(probes) == ["a3"] and not probes


def test_a_probe_waits_until_nothing_else_awaits_a_confirm():
    nodes = TrustedNodes()
    nodes.trust(at("reply@1"))
    probes = Probes(nodes)
    probes.add(at("reply@2"), "b1")
    assert drain(probes, unconfirmed=3) == []
    assert drain(probes, unconfirmed=0) == ["b1"]


def test_a_probe_that_cost_the_connection_marks_its_node_bad_for_a_while():
    clock = Clock()
    probes = Probes(TrustedNodes(), clock)
    for address, item in ((at("reply@666"), "dead1"), (at("reply@666"), "dead2"), (at("reply@2"), "b1")):
        probes.add(address, item)
    assert drain(probes) == ["dead1"]
    probes.lost(internal_error=True)
    probes.add(at("reply@666"), "dead3")
    assert drain(probes) == ["b1"]  # node 2 probed next; node 666's replies dropped
    clock.now += BAD_S + 1
    probes.confirmed(at("reply@2"))
    probes.add(at("reply@666"), "dead4")
    assert drain(probes) == ["dead4"]  # probed again


def test_a_probe_unanswered_for_the_probe_wait_is_given_up_and_its_node_marked_bad():
    clock = Clock()
    probes = Probes(TrustedNodes(), clock)
    for address, item in ((at("reply@frozen"), "f1"), (at("reply@frozen"), "f2"), (at("reply@2"), "b1")):
        probes.add(address, item)
    assert drain(probes) == ["f1"]
    clock.now += PROBE_WAIT_S - 0.1
    assert probes.overdue() is None
    clock.now += 0.1
    assert probes.overdue() == "reply@frozen"
    probes.give_up()
    probes.lost(internal_error=False)  # the reopen that follows blames nobody else
    assert probes.overdue() is None and probes.bad == {"reply@frozen": clock.now + BAD_S}
    assert drain(probes) == ["b1"]  # node 2's probe, on the next connection; f2 dropped


def test_a_probe_answered_in_time_is_never_overdue():
    clock = Clock()
    probes = Probes(TrustedNodes(), clock)
    probes.add(at("reply@1"), "a1")
    assert drain(probes) == ["a1"]
    probes.confirmed(at("reply@1"))
    clock.now += PROBE_WAIT_S * 10
    assert probes.overdue() is None


def test_a_connection_lost_otherwise_blames_no_node():
    probes = Probes(TrustedNodes())
    probes.add(at("reply@1"), "a1")
    probes.add(at("reply@1"), "a2")
    assert drain(probes) == ["a1"]
    probes.lost(internal_error=False)
    assert drain(probes) == ["a2"] and probes.bad == {}  # a2 is node 1's probe now


def test_an_address_naming_no_node_is_never_sent():
    probes = Probes(TrustedNodes())
    probes.add("amq.rabbitmq.reply-to.!!!.key", "x")
    assert drain(probes) == [] and not probes


def test_an_actor_forgets_its_trusted_nodes_when_its_node_went_silent(settings):
    """A node that went silent is soon counted down by the others, and a reply to a client of it then
    crashes the channel that sends it (541): the actor's own connection must not be that channel."""
    from bus.silence import BrokerSilent, Dropped
    from runtime.actor import Actor

    actor = Actor(settings)
    for reason, forgotten in ((ConnectionResetError("reset"), False), (Dropped("reconnect asked for"), False),
                              (BrokerSilent("silent"), True)):
        actor.trusted.trust(SEEN)
        actor.bus.lost_reason = reason
        actor._on_lost()
        assert actor.trusted.covers(SEEN) is not forgotten
