"""The node a direct reply-to address names, and which nodes an actor's own connection may answer."""
from __future__ import annotations

import base64

import pytest

from bus.replyto import BAD_S, REMEMBERED, Probes, TrustedNodes, node_of

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
    assert len(nodes._node_of) <= REMEMBERED and nodes.covers(SEEN)


def at(node: str) -> str:
    name = node.encode()
    return address(bytes([131, 88, 118, 0, len(name)]) + name + bytes(12))


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


def test_one_node_is_probed_at_a_time_and_its_confirm_lets_its_others_go():
    probes = Probes(TrustedNodes())
    assert probes.admit(at("reply@1"), "a1") == ["a1"]  # the probe of node 1
    assert probes.admit(at("reply@1"), "a2") == []
    assert probes.admit(at("reply@2"), "b1") == []
    assert probes.confirmed(at("reply@1")) == ["a2", "b1"]  # node 1's others, and node 2's probe
    assert probes.admit(at("reply@1"), "a3") == ["a3"]  # trusted now
    assert probes.confirmed(at("reply@2")) == []
    assert probes.admit(at("reply@2"), "b2") == ["b2"]


def test_a_probe_that_cost_the_connection_marks_its_node_bad_for_a_while():
    clock = Clock()
    probes = Probes(TrustedNodes(), clock)
    assert probes.admit(at("reply@666"), "dead1") == ["dead1"]
    assert probes.admit(at("reply@666"), "dead2") == []
    assert probes.admit(at("reply@2"), "b1") == []
    assert probes.lost(internal_error=True) == ["b1"]  # node 2 is probed next; node 666's replies dropped
    assert probes.admit(at("reply@666"), "dead3") == []
    assert probes.confirmed(at("reply@2")) == []
    clock.now += BAD_S + 1
    assert probes.admit(at("reply@666"), "dead4") == ["dead4"]  # probed again


def test_a_connection_lost_otherwise_blames_no_node():
    probes = Probes(TrustedNodes())
    assert probes.admit(at("reply@1"), "a1") == ["a1"]
    assert probes.admit(at("reply@1"), "a2") == []
    assert probes.lost(internal_error=False) == ["a2"]  # a2 is node 1's probe now
    assert probes.bad == {}


def test_an_address_naming_no_node_is_never_sent():
    assert Probes(TrustedNodes()).admit("amq.rabbitmq.reply-to.!!!.key", "x") == []
