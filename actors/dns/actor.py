"""The cluster DNS actor (CoreDNS's `kubernetes` plugin): a cache of Services, EndpointSlices and
Namespaces fed by events like every actor's, answered from on UDP and TCP. Any number may run, each
on its own address. Until its cache has synced it answers SERVFAIL for cluster names, as CoreDNS does
before its informers sync."""
from __future__ import annotations

import threading

from dnslib import DNSRecord

from actors.dns.answers import answer
from actors.dns.server import Listeners, Resolver
from actors.dns.zone import Zone
from runtime.cache import Delta
from runtime.follower import Follower

KINDS = ("Service", "EndpointSlice", "Namespace")


class DnsActor(Follower):
    name = "dns"
    kinds = KINDS

    def __init__(self, settings, **kw):
        super().__init__(settings, **kw)
        self.zone = Zone(settings.cluster_domain, settings.dns_ttl)
        self.lock = threading.Lock()  # the listeners' threads read the zone the mailbox writes
        self.synced = False
        self.listeners = Listeners(settings.dns_address, Resolver(self._answer, settings.dns_upstream))

    def on_delta(self, delta: Delta) -> None:
        with self.lock:
            if delta.type == "DELETED":
                self.zone.remove(delta.kind, delta.object)
            else:
                self.zone.apply(delta.kind, delta.object)

    def on_synced(self) -> None:
        if not self.synced:
            self.log.info("dns.serving", address=self.settings.dns_address, domain=self.settings.cluster_domain)
        self.synced = True

    def _answer(self, request: DNSRecord) -> DNSRecord | None:
        with self.lock:
            return answer(self.zone, request, synced=self.synced)

    def run(self) -> None:
        self.listeners.start()
        try:
            super().run()
        finally:
            self.listeners.stop()
