"""Frames queued in one ioloop turn leave in one write, in order, joined up to a size limit; a read takes
what has come in as few calls as it can, and what it writes leaves when it ends."""
from __future__ import annotations

import socket
from collections import deque

import pytest

from bus import transport


class Transport:
    def __init__(self, buffers: list[bytes]):
        self._tx_buffers = deque(buffers)
        self.writes: list[list[bytes]] = []


@pytest.fixture
def writes(monkeypatch):
    monkeypatch.setattr(transport, "_produce", lambda self: self.writes.append(list(self._tx_buffers)))

    def produce(buffers: list[bytes]) -> list[bytes]:
        t = Transport(buffers)
        transport._coalescing_produce(t)
        return t.writes[0]

    return produce


def test_small_frames_join_in_order(writes):
    assert writes([b"method", b"header", b"body", b"ack"]) == [b"methodheaderbodyack"]


def test_joining_stops_at_the_limit(writes):
    big = b"x" * transport.JOIN_LIMIT
    assert writes([b"a", b"b", big, b"c"]) == [b"ab", big, b"c"]
    assert writes([big, b"a", b"b"]) == [big, b"a", b"b"]


def test_a_single_buffer_is_left_alone(writes):
    assert writes([b"only"]) == [b"only"]


class Protocol:
    """Records what the transport reads; answers each read with `answer` bytes written back."""

    def __init__(self, answer: bytes = b""):
        self.answer, self.reads, self.transport = answer, [], None

    def data_received(self, data: bytes) -> None:
        self.reads.append(len(data))
        if self.answer:
            self.transport.write(self.answer)


@pytest.fixture
def wired():
    """A pika plaintext transport on one end of a real socket pair, on pika's own ioloop."""
    from pika.adapters.select_connection import IOLoop
    from pika.adapters.utils.io_services_utils import _AsyncPlaintextTransport
    from pika.adapters.utils.selector_ioloop_adapter import SelectorIOServicesAdapter

    transport.install()
    ours, peer = socket.socketpair()
    peer.settimeout(2)
    ours.setblocking(False)
    made = []

    def make(protocol: Protocol):
        nbio = SelectorIOServicesAdapter(IOLoop())
        t = protocol.transport = _AsyncPlaintextTransport(ours, protocol, nbio)
        recvs = []

        def recv(sock, size):
            recvs.append(size)
            return sock.recv(size)

        t._sigint_safe_recv = recv
        made.append(nbio)
        return t, peer, recvs, nbio._watchers[ours.fileno()]

    yield make
    ours.close()
    peer.close()
    for nbio in made:
        nbio.close()


def test_a_read_ends_at_the_first_call_that_drains_the_socket(wired):
    t, peer, recvs, _watch = wired(protocol := Protocol())
    peer.sendall(b"x" * 10_000)
    t._on_socket_readable()
    assert (protocol.reads, recvs) == ([10_000], [transport.RECV_BYTES])


def test_a_long_read_goes_on_while_calls_come_back_full(wired):
    t, peer, recvs, _watch = wired(protocol := Protocol())
    peer.sendall(b"x" * (transport.RECV_BYTES + 5))
    t._on_socket_readable()
    assert (protocol.reads, len(recvs)) == ([transport.RECV_BYTES, 5], 2)


def test_what_a_read_writes_leaves_when_the_read_ends_without_a_writability_watch(wired):
    t, peer, _recvs, watch = wired(Protocol(answer=b"pong"))
    peer.sendall(b"ping")
    t._on_socket_readable()
    assert (peer.recv(100), watch.writer, t.get_write_buffer_size()) == (b"pong", None, 0)


def test_what_the_socket_cannot_take_waits_for_writability(wired):
    t, peer, _recvs, watch = wired(Protocol(answer=b"y" * (16 << 20)))  # more than the socket buffers hold
    peer.sendall(b"ping")
    t._on_socket_readable()
    assert watch.writer is not None and 0 < t.get_write_buffer_size() < 16 << 20


def test_what_the_ioloops_callbacks_and_timers_write_leaves_when_they_have_run(wired):
    """Acks joined at the end of a turn, a partial command batch: written from a callback or a timer,
    sent once they have all run, in one write, without a writability watch."""
    t, peer, _recvs, watch = wired(Protocol())
    loop = t._nbio._loop
    loop.add_callback_threadsafe(lambda: t.write(b"ack"))
    loop.call_later(0, lambda: t.write(b"batch"))
    sent = []
    t._sigint_safe_send = lambda sock, data: sent.append(bytes(data)) or sock.send(data)
    loop.process_timeouts()
    assert (sent, watch.writer, t.get_write_buffer_size()) == ([b"ackbatch"], None, 0)
    assert peer.recv(100) == b"ackbatch"


def test_a_write_outside_the_ioloops_turns_is_pikas(wired):
    t, _peer, _recvs, watch = wired(Protocol())
    t.write(b"late")
    assert watch.writer is not None and t.get_write_buffer_size() == 4
