"""The cluster DNS's answers as CoreDNS's `kubernetes` plugin gives them (pure logic on dnslib)."""
from __future__ import annotations

import pytest
from dnslib import QTYPE, RCODE, DNSRecord

from actors.dns.answers import answer
from actors.dns.zone import Zone


def ask(zone: Zone, name: str, qtype: str = "A", synced: bool = True) -> DNSRecord | None:
    return answer(zone, DNSRecord.question(name, qtype), synced)


def rdatas(reply: DNSRecord, section: str = "rr") -> list[str]:
    return sorted(str(rr.rdata) for rr in getattr(reply, section))


@pytest.fixture
def zone() -> Zone:
    z = Zone("cluster.local", ttl=5, clock=lambda: 1700000000)
    z.apply("Namespace", {"metadata": {"name": "default"}})
    z.apply("Service", {"metadata": {"name": "web", "namespace": "default"},
                        "spec": {"clusterIP": "10.96.0.20", "clusterIPs": ["10.96.0.20"],
                                 "ports": [{"name": "http", "port": 80, "protocol": "TCP"},
                                           {"port": 81, "protocol": "TCP"}]}})
    z.apply("Service", {"metadata": {"name": "db", "namespace": "default"},
                        "spec": {"clusterIP": "None", "ports": [{"name": "sql", "port": 5432}]}})
    z.apply("Service", {"metadata": {"name": "ext", "namespace": "default"},
                        "spec": {"type": "ExternalName", "externalName": "db.example.com"}})
    z.apply("Service", {"metadata": {"name": "empty", "namespace": "default"}, "spec": {"clusterIP": "None"}})
    z.apply("EndpointSlice", {
        "metadata": {"name": "db-x", "namespace": "default", "labels": {"kubernetes.io/service-name": "db"}},
        "addressType": "IPv4", "ports": [{"name": "sql", "port": 5432, "protocol": "TCP"}],
        "endpoints": [{"addresses": ["10.244.0.5"], "conditions": {"ready": True}, "hostname": "db-0"},
                      {"addresses": ["10.244.1.6"], "conditions": {"ready": True}},
                      {"addresses": ["10.244.1.7"], "conditions": {"ready": False}}]})
    return z


def test_a_cluster_ip_service(zone):
    reply = ask(zone, "web.default.svc.cluster.local")
    assert (reply.header.rcode, reply.header.aa, rdatas(reply)) == (RCODE.NOERROR, 1, ["10.96.0.20"])
    assert reply.rr[0].ttl == 5
    nodata = ask(zone, "web.default.svc.cluster.local", "AAAA")
    assert (nodata.header.rcode, nodata.rr, [QTYPE[a.rtype] for a in nodata.auth]) == (RCODE.NOERROR, [], ["SOA"])


def test_a_headless_service_answers_its_ready_endpoints_and_nxdomain_without(zone):
    assert rdatas(ask(zone, "db.default.svc.cluster.local")) == ["10.244.0.5", "10.244.1.6"]
    assert rdatas(ask(zone, "db-0.db.default.svc.cluster.local")) == ["10.244.0.5"]
    assert rdatas(ask(zone, "10-244-1-6.db.default.svc.cluster.local")) == ["10.244.1.6"]
    assert ask(zone, "empty.default.svc.cluster.local").header.rcode == RCODE.NXDOMAIN
    assert ask(zone, "10-244-1-7.db.default.svc.cluster.local").header.rcode == RCODE.NXDOMAIN  # not ready


def test_srv_records(zone):
    reply = ask(zone, "_http._tcp.web.default.svc.cluster.local", "SRV")
    assert rdatas(reply) == ["0 100 80 web.default.svc.cluster.local."]
    assert rdatas(reply, "ar") == ["10.96.0.20"]
    every = ask(zone, "web.default.svc.cluster.local", "SRV")
    assert rdatas(every) == ["0 50 80 web.default.svc.cluster.local.", "0 50 81 web.default.svc.cluster.local."]
    headless = ask(zone, "_sql._tcp.db.default.svc.cluster.local", "SRV")
    assert rdatas(headless) == ["0 50 5432 10-244-1-6.db.default.svc.cluster.local.",
                                "0 50 5432 db-0.db.default.svc.cluster.local."]
    assert rdatas(headless, "ar") == ["10.244.0.5", "10.244.1.6"]
    assert ask(zone, "_nope._tcp.web.default.svc.cluster.local", "SRV").header.rcode == RCODE.NXDOMAIN


def test_external_name_pods_ptr_and_the_schema(zone):
    assert rdatas(ask(zone, "ext.default.svc.cluster.local")) == ["db.example.com."]
    assert rdatas(ask(zone, "10-244-3-4.default.pod.cluster.local")) == ["10.244.3.4"]
    assert ask(zone, "10-244-3-4.nope.pod.cluster.local").header.rcode == RCODE.NXDOMAIN
    assert rdatas(ask(zone, "20.0.96.10.in-addr.arpa", "PTR")) == ["web.default.svc.cluster.local."]
    assert rdatas(ask(zone, "5.0.244.10.in-addr.arpa", "PTR")) == ["db-0.db.default.svc.cluster.local."]
    assert ask(zone, "9.9.9.9.in-addr.arpa", "PTR") is None  # fallthrough: the caller forwards or refuses
    version = ask(zone, "dns-version.cluster.local", "TXT")
    assert (rdatas(version), version.rr[0].ttl) == (['"1.1.0"'], 28800)


def test_nxdomain_nodata_and_refusals(zone):
    for name in ("nope.default.svc.cluster.local", "web.nope.svc.cluster.local", "a.b.c.d.e.svc.cluster.local",
                 "web.default.other.cluster.local"):
        reply = ask(zone, name)
        assert (reply.header.rcode, reply.header.aa) == (RCODE.NXDOMAIN, 1), name
        soa = reply.auth[0]
        assert (str(soa.rname), soa.ttl) == ("cluster.local.", 5)
        assert str(soa.rdata).split()[:3] == ["ns.dns.cluster.local.", "hostmaster.cluster.local.", "1700000000"]
    for name in ("svc.cluster.local", "pod.cluster.local", "default.svc.cluster.local"):
        reply = ask(zone, name)
        assert (reply.header.rcode, reply.rr) == (RCODE.NOERROR, []), name
    assert ask(zone, "web.default.svc.cluster.local", "MX").header.rcode == RCODE.NOERROR
    assert ask(zone, "cluster.local", "AXFR").header.rcode == RCODE.REFUSED
    assert ask(zone, "web.default.svc.cluster.local", synced=False).header.rcode == RCODE.SERVFAIL
    assert ask(zone, "example.com") is None
    assert rdatas(ask(zone, "WEB.Default.SVC.cluster.local")) == ["10.96.0.20"]  # case does not matter
