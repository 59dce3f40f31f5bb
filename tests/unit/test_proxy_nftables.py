"""The nftables mode's rules as pure logic: what `render` makes of the proxy's table."""
from __future__ import annotations

import re

from actors.proxy.nftables import base, render
from actors.proxy.table import Port

WEB = Port("default/web:http", (("10.244.0.2", 8080), ("10.244.1.2", 8080)), 0)


def test_a_cluster_ip_and_its_node_port_share_one_service_chain_choosing_an_endpoint_at_random():
    cluster_ips, node_ports, chains, sets = render({("10.96.0.20", 80, "TCP"): WEB, ("127.0.0.1", 30080, "TCP"): WEB})
    [to_cluster_ip] = cluster_ips
    [to_node_port] = node_ports
    assert to_cluster_ip.startswith("ip daddr 10.96.0.20 meta l4proto tcp th dport 80 goto svc-")
    assert to_node_port.startswith("meta l4proto tcp th dport 30080 goto svc-")
    service = to_cluster_ip.rsplit(" ", 1)[1]
    assert to_node_port.endswith(service)
    [pick] = chains[service]
    endpoints = re.findall(r"goto (ep-\w+)", pick)
    assert pick.startswith("numgen random mod 2 vmap") and len(endpoints) == 2
    assert [chains[e][-1] for e in endpoints] == ["meta l4proto tcp dnat to 10.244.0.2:8080",
                                                  "meta l4proto tcp dnat to 10.244.1.2:8080"]
    assert all(chains[e][0] == "meta mark set meta mark | 0x4000" for e in endpoints)  # masqueraded
    assert sets == {}


def test_a_port_without_endpoints_has_no_rule():
    assert render({("10.96.0.21", 80, "TCP"): Port("default/none:", (), 0)}) == ([], [], {}, {})


def test_client_ip_affinity_remembers_each_client_per_endpoint_for_the_timeout():
    sticky = Port("default/dns:dns", (("10.244.0.4", 5353), ("10.244.0.5", 5353)), 60)
    cluster_ips, _, chains, sets = render({("10.96.0.30", 53, "UDP"): sticky})
    service = chains[cluster_ips[0].rsplit(" ", 1)[1]]
    assert sorted(sets.values()) == [60, 60]
    lookups = service[:2]
    assert all(re.fullmatch(r"ip saddr @aff-\w+ goto ep-\w+", rule) for rule in lookups)
    assert service[2].startswith("numgen random mod 2")
    for rule in lookups:
        affinity, endpoint = re.findall(r"(aff-\w+|ep-\w+)", rule)
        assert chains[endpoint][0] == f"update @{affinity} {{ ip saddr }}"
        assert chains[endpoint][-1].startswith("meta l4proto udp dnat to 10.244.0.")


def test_names_are_stable_so_an_unchanged_endpoint_keeps_its_remembered_clients():
    sticky = Port("default/web:http", WEB.endpoints, 60)
    first = render({("10.96.0.20", 80, "TCP"): sticky})
    again = render({("10.96.0.20", 80, "TCP"): sticky, ("10.96.0.21", 80, "TCP"): Port("default/x:", (), 0)})
    assert first == again
    longer = render({("10.96.0.20", 80, "TCP"): Port("default/web:http", WEB.endpoints, 120)})
    assert set(longer[3]).isdisjoint(first[3])  # a new timeout is a new set


def test_node_ports_match_the_hosts_own_addresses_but_loopback_and_the_service_range():
    assert "fib daddr type local ip daddr != { 127.0.0.0/8, 10.96.0.0/12 } jump node-ports" in base("t", "10.96.0.0/12")
