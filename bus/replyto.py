"""Which direct reply-to addresses a connection may answer without the broker dropping it.

RabbitMQ 3.10 crashes the channel that publishes to a direct reply-to address whose node it does not
count as running, and closes that channel's connection with 541 INTERNAL_ERROR
(`rabbit_channel:deliver_reply` matches `{error, _}` where `rabbit_direct_reply_to:decode_reply_to_v2`
returns `error`; later releases match both). Requests queued by a client of a node that just died
carry such addresses, and anyone may write one into a request's `reply_to`: answered on an actor's
own connection, each cost it the connection, and a redelivered request cost it again and again.

An address names its node in the pid it encodes (`reply@<hash of the node's name>`). A node is
trusted once a reply to one of its addresses was confirmed; replies to any other go on a side
connection (`runtime.replies`), where a crash costs nobody's lock or queue.
"""
from __future__ import annotations

import base64
import binascii

DIRECT = "amq.rabbitmq.reply-to"  # what a caller consumes and names as its reply_to
PREFIX = DIRECT + "."  # what the broker turns that into: DIRECT.<encoded pid>.<key>
PID_TAGS = (88, 103)  # NEW_PID_EXT, PID_EXT
ATOM_TAGS = {118: 2, 100: 2, 119: 1, 115: 1}  # ATOM_UTF8_EXT, ATOM_EXT, their SMALL_ forms: length bytes
REMEMBERED = 4096  # addresses whose node is remembered (one per client channel)


def node_of(address: str) -> str | None:
    """The node named in a direct reply-to address's encoded pid, or None if it names none."""
    if not address.startswith(PREFIX):
        return None
    try:
        raw = base64.b64decode(address[len(PREFIX):].split(".", 1)[0], validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) < 4 or raw[0] != 131 or raw[1] not in PID_TAGS or raw[2] not in ATOM_TAGS:
        return None
    width = ATOM_TAGS[raw[2]]
    size = int.from_bytes(raw[3:3 + width], "big")
    name = raw[3 + width:3 + width + size]
    return name.decode("utf-8", "replace") if len(name) == size and size else None


class TrustedNodes:
    """Nodes whose reply-to addresses were answered with a confirm; forgotten when the broker drops
    the connection that trusted them (a trusted node may have died). Trusted on the reply thread,
    read and forgotten on the actor's: a confirm landing just after a forget trusts its node again,
    which costs at most one more dropped connection."""

    def __init__(self) -> None:
        self.nodes: set[str] = set()
        self._node_of: dict[str, str | None] = {}

    def covers(self, address: str) -> bool:
        return self._node(address) in self.nodes

    def trust(self, address: str) -> None:
        node = self._node(address)
        if node is not None:
            self.nodes.add(node)

    def forget(self) -> None:
        self.nodes.clear()

    def _node(self, address: str) -> str | None:
        node = self._node_of.get(address, "")
        if node == "":
            if len(self._node_of) >= REMEMBERED:
                self._node_of.clear()
            node = self._node_of[address] = node_of(address)
        return node
