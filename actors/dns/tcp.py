"""DNS over TCP with bounds: a thread per connection, but at most MAX_CONNECTIONS of them, and a
query must arrive whole within READ_S of the connection (miekg/dns's read timeout, under CoreDNS),
so idle or trickling connections cannot hold threads. A connection over the bound makes room by
closing the one that has waited longest for its query: a fresh client is answered even while idle
connections pile up."""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections import OrderedDict

import structlog
from dnslib.dns import DNSError
from dnslib.server import DNSHandler, TCPServer

log = structlog.get_logger("dns")
MAX_CONNECTIONS = 100
READ_S = 2.0


class BoundedTCPServer(TCPServer):
    request_queue_size = 128  # connections the kernel holds before they are accepted

    def __init__(self, server_address, handler):
        super().__init__(server_address, handler)
        self.waiting: OrderedDict[socket.socket, None] = OrderedDict()  # connections still reading their query
        self.lock = threading.Lock()
        self.evicted = 0

    def process_request(self, request, client_address) -> None:
        with self.lock:
            if len(self.waiting) >= MAX_CONNECTIONS:
                self._evict(self.waiting.popitem(last=False)[0])
            self.waiting[request] = None
        super().process_request(request, client_address)

    def _evict(self, oldest: socket.socket) -> None:
        """Wake the handler of `oldest` (its read ends), so its thread returns."""
        if self.evicted == 0:
            log.warning("dns.tcp_connections_full", most=MAX_CONNECTIONS,
                        why="the oldest connection still without a query is closed to make room")
        self.evicted += 1
        try:
            oldest.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already gone

    def read(self, request: socket.socket) -> bytes | None:
        """The query of a connection (its length prefix removed), or None if it did not come whole in time."""
        try:
            deadline = time.monotonic() + READ_S
            length = struct.unpack("!H", _read_exactly(request, 2, deadline))[0]
            return _read_exactly(request, length, deadline)
        except OSError:  # timed out, reset, closed, or evicted
            return None
        finally:
            with self.lock:
                self.waiting.pop(request, None)


class TCPHandler(DNSHandler):
    """dnslib's handler, reading through the server's bounds."""

    def handle(self) -> None:
        self.protocol = "tcp"
        data = self.server.read(self.request)
        if data is None:
            return
        try:
            reply = self.get_reply(data)
            self.request.sendall(struct.pack("!H", len(reply)) + reply)
        except (DNSError, OSError) as exc:
            self.server.logger.log_error(self, exc)


def _read_exactly(sock: socket.socket, size: int, deadline: float) -> bytes:
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the query did not arrive in time")
        sock.settimeout(left)
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("closed before a whole query")
        data += chunk
    return data
