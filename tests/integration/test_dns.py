"""The cluster DNS actor against the real store: Services and their slices answered over UDP and TCP
as CoreDNS answers them (queried with dnspython, as a program on the host would), a change seen
within the TTL, and names outside the cluster refused, never left hanging."""
from __future__ import annotations

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import pytest

from testkit.hosts import free_port
from testkit.waiting import wait_until


@pytest.fixture
def dns_server(cluster, procs):
    port = free_port()
    procs.start("actors.dns", KUBUS_DNS_ADDRESS=f"127.0.0.1:{port}")
    return cluster, port


def query(port: int, name: str, rdtype: str = "A", tcp: bool = False) -> dns.message.Message:
    ask = dns.query.tcp if tcp else dns.query.udp
    return ask(dns.message.make_query(name, rdtype), "127.0.0.1", port=port, timeout=2)


def values(reply: dns.message.Message) -> list[str]:
    return sorted(item.to_text() for rrset in reply.answer for item in rrset)


def test_services_answered_over_udp_and_tcp(dns_server):
    client, port = dns_server
    web = client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                         "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}})
    client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"},
                   "spec": {"clusterIP": "None", "ports": [{"name": "sql", "port": 5432}]}})
    client.create({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                   "metadata": {"name": "db-1", "labels": {"kubernetes.io/service-name": "db"}},
                   "addressType": "IPv4", "ports": [{"name": "sql", "port": 5432, "protocol": "TCP"}],
                   "endpoints": [{"addresses": ["10.244.0.9"], "hostname": "db-0"}]})
    ip = web["spec"]["clusterIP"]
    name = "web.default.svc.cluster.local"
    wait_until(lambda: values(query(port, name)) == [ip], 10, what="the DNS actor to know the Service")
    assert values(query(port, name, tcp=True)) == [ip]
    assert values(query(port, "kubernetes.default.svc.cluster.local")) == ["10.96.0.1"]
    assert values(query(port, f"_http._tcp.{name}", "SRV")) == [f"0 100 80 {name}."]
    assert values(query(port, "db-0.db.default.svc.cluster.local")) == ["10.244.0.9"]
    missing = query(port, "nope.default.svc.cluster.local")
    assert missing.rcode() == dns.rcode.NXDOMAIN and missing.authority[0].rdtype == dns.rdatatype.SOA
    assert query(port, "example.com").rcode() == dns.rcode.REFUSED

    client.delete("Service", "web")
    wait_until(lambda: query(port, name).rcode() == dns.rcode.NXDOMAIN, 5, what="the deletion to show")
