"""The node a direct reply-to address names, and which nodes an actor's own connection may answer."""
from __future__ import annotations

import base64

import pytest

from bus.replyto import REMEMBERED, TrustedNodes, node_of

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
