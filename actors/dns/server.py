"""The DNS actor's listeners: UDP and TCP on one address (dnslib's threaded servers, TCP's bounded
by `actors.dns.tcp`). Names of the cluster domain are answered from the zone; other names are
forwarded to the upstream resolver when one is set (setting `dns_upstream`), else REFUSED — never
left without an answer."""
from __future__ import annotations

import socket
import threading
from typing import Callable

import structlog
from dnslib import DNSRecord, RCODE
from dnslib.server import BaseResolver, DNSServer

from actors.dns.tcp import BoundedTCPServer, TCPHandler

log = structlog.get_logger("dns")
UPSTREAM_TIMEOUT_S = 2.0

Answer = Callable[[DNSRecord], DNSRecord | None]  # None: not a name of the cluster domain


class Resolver(BaseResolver):
    def __init__(self, answer: Answer, upstream: str):
        self.answer, self.upstream = answer, upstream

    def resolve(self, request: DNSRecord, handler) -> DNSRecord:
        try:
            reply = self.answer(request)
        except Exception:  # a bug met by one query: answer it, keep serving
            log.exception("dns.answer_failed", name=str(request.q.qname))
            return _failed(request, RCODE.SERVFAIL)
        return reply if reply is not None else self._outside(request, handler)

    def _outside(self, request: DNSRecord, handler) -> DNSRecord:
        if not self.upstream:
            return _failed(request, RCODE.REFUSED)
        host, _, port = self.upstream.rpartition(":")
        try:
            raw = request.send(host, int(port), tcp=handler.protocol == "tcp", timeout=UPSTREAM_TIMEOUT_S)
            return DNSRecord.parse(raw)
        except (OSError, socket.timeout, ValueError) as exc:
            log.info("dns.upstream_failed", name=str(request.q.qname), upstream=self.upstream, error=str(exc))
            return _failed(request, RCODE.SERVFAIL)


def _failed(request: DNSRecord, rcode: int) -> DNSRecord:
    reply = request.reply()
    reply.header.rcode = rcode
    return reply


class QuietLogger:
    """dnslib's logger interface: nothing per query; a packet that does not decode is logged."""

    def log_error(self, handler, error) -> None:
        log.info("dns.bad_packet", client=str(handler.client_address[0]), error=str(error)[:200])

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None


class Listeners:
    def __init__(self, address: str, resolver: Resolver):
        host, _, port = address.rpartition(":")
        self.servers = [DNSServer(resolver, address=host, port=int(port), logger=QuietLogger()),
                        DNSServer(resolver, address=host, port=int(port), tcp=True, logger=QuietLogger(),
                                  handler=TCPHandler, server=BoundedTCPServer)]

    def start(self) -> None:
        for server in self.servers:
            threading.Thread(target=server.server.serve_forever, name="dns-listener", daemon=True).start()

    def stop(self) -> None:
        for server in self.servers:
            server.server.shutdown()
            server.server.server_close()
