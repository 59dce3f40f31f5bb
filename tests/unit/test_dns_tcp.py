"""DNS over TCP's bounds (actors.dns.tcp): a query must come whole before the deadline."""
from __future__ import annotations

import socket
import struct

import pytest

from actors.dns import tcp


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(tcp, "READ_S", 0.2)
    server = tcp.BoundedTCPServer(("127.0.0.1", 0), tcp.TCPHandler)
    yield server
    server.server_close()


@pytest.mark.parametrize("sent", [
    pytest.param(b"", id="nothing"),
    pytest.param(b"\x00", id="half-a-length"),
    pytest.param(struct.pack("!H", 40) + b"x" * 10, id="part-of-a-query"),
])
def test_a_query_that_does_not_come_whole_is_dropped(server, sent):
    client, conn = socket.socketpair()
    with client, conn:
        server.waiting[conn] = None
        client.sendall(sent)
        assert server.read(conn) is None
        assert conn not in server.waiting


def test_a_whole_query_is_read_without_its_length(server):
    client, conn = socket.socketpair()
    with client, conn:
        client.sendall(struct.pack("!H", 5) + b"hello")
        assert server.read(conn) == b"hello"
