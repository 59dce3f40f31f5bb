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
import functools
import time
from collections import deque
from typing import Any, Callable

DIRECT = "amq.rabbitmq.reply-to"  # what a caller consumes and names as its reply_to
PREFIX = DIRECT + "."  # what the broker turns that into: DIRECT.<encoded pid>.<key>
PID_TAGS = (88, 103)  # NEW_PID_EXT, PID_EXT
ATOM_TAGS = {118: 2, 100: 2, 119: 1, 115: 1}  # ATOM_UTF8_EXT, ATOM_EXT, their SMALL_ forms: length bytes
REMEMBERED = 4096  # addresses whose node is remembered (one per client channel)
BAD_S = 10.0  # a node whose probe cost the connection gets no replies this long
PROBE_WAIT_S = 2.0  # a probe's confirm takes milliseconds; one held this long holds every reply behind it


@functools.lru_cache(maxsize=REMEMBERED)
def node_of(address: str) -> str | None:
    """The node named in a direct reply-to address's encoded pid, or None if it names none (remembered:
    the apiserver and the store ask for every request's address, the reply path again)."""
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

    def covers(self, address: str) -> bool:
        return node_of(address) in self.nodes

    def trust(self, address: str) -> None:
        node = node_of(address)
        if node is not None:
            self.nodes.add(node)

    def forget(self) -> None:
        self.nodes.clear()


class Probes:
    """What a reply connection sends next. Replies to trusted nodes go in order; a node not trusted
    yet is probed alone — its first reply goes out only when nothing else awaits a confirm, and nothing
    else goes out until the probe's confirm trusts the node and lets its others go. So a connection
    dropped with 541 while a probe was out names the bad node exactly and costs no other reply; that
    node's replies are dropped for BAD_S (its clients are gone with it, or never were). Bookkeeping
    only, on the reply connection's thread.

    A probe can also go unanswered: the broker then holds the channel, and every reply behind the probe
    — seen for 11 s, until it counted the probe's node down and crashed the channel. A probe out for
    PROBE_WAIT_S is given up (`overdue`, `give_up`): its node goes bad as if it had cost the connection,
    and the connection is reopened so that the rest goes on."""

    def __init__(self, nodes: TrustedNodes, clock: Callable[[], float] = time.monotonic):
        self.nodes, self.clock = nodes, clock
        self.ready: deque[Any] = deque()  # to trusted nodes
        self.held: dict[str, list[Any]] = {}  # untrusted node -> its items, nodes in arrival order
        self.probe: str | None = None  # the node whose probe is out
        self.probed_at = 0.0
        self.bad: dict[str, float] = {}  # node -> until when its replies are dropped

    def __bool__(self) -> bool:
        return bool(self.ready or self.held)

    def add(self, address: str, item: Any) -> None:
        node = node_of(address)
        if node is None or self.bad.get(node, 0.0) > self.clock():
            return
        if node in self.nodes.nodes:
            self.ready.append(item)
        else:
            self.held.setdefault(node, []).append(item)

    def take(self, unconfirmed: int) -> Any | None:
        """The next item to send, given how many sends still await their confirm; None: wait."""
        if self.probe is not None:
            return None
        for node in [node for node in self.held if node in self.nodes.nodes]:  # trusted meanwhile
            self.ready.extend(self.held.pop(node))
        if self.ready:
            return self.ready.popleft()
        if not self.held or unconfirmed:
            return None
        node = next(iter(self.held))
        items = self.held[node]
        if len(items) == 1:
            del self.held[node]
        self.probe, self.probed_at = node, self.clock()
        return items.pop(0)

    def confirmed(self, address: str) -> None:
        self.nodes.trust(address)
        if self.probe is not None and node_of(address) == self.probe:
            self.ready.extend(self.held.pop(self.probe, []))
            self.probe = None

    def overdue(self) -> str | None:
        """The node whose probe has been out PROBE_WAIT_S or longer, if one has."""
        if self.probe is not None and self.clock() - self.probed_at >= PROBE_WAIT_S:
            return self.probe
        return None

    def give_up(self) -> None:
        """The probe out will not be answered in time: its node goes bad (the connection is to be reopened)."""
        self.lost(internal_error=True)

    def lost(self, internal_error: bool) -> None:
        """The connection went; with 541, because of the probe out (if one was)."""
        if self.probe is not None and internal_error:
            now = self.clock()
            if len(self.bad) >= REMEMBERED:
                self.bad = {node: until for node, until in self.bad.items() if until > now}
            self.bad[self.probe] = now + BAD_S
            self.held.pop(self.probe, None)
        self.probe = None
