"""What the proxy forwards, as kube-proxy decides it (pure logic): ready endpoints, else serving and
terminating ones, none for a headless or ExternalName Service, node ports on the host's loopback,
ports linked to slice ports by name, slices of another address family skipped."""
from __future__ import annotations

import pytest

from actors.proxy.table import build
from api.discovery import usable


def service(name="web", **spec) -> dict:
    base = {"clusterIP": "10.96.0.20", "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {**base, **spec}}


def endpoint(ip: str, ready=True, serving=True, terminating=False) -> dict:
    return {"addresses": [ip], "conditions": {"ready": ready, "serving": serving, "terminating": terminating}}


def slice_(*endpoints, service_name="web", port_name="http", port=8080, address_type="IPv4") -> dict:
    return {"metadata": {"name": f"{service_name}-x", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": service_name}}, "addressType": address_type,
            "ports": [{"name": port_name, "port": port, "protocol": "TCP"}], "endpoints": list(endpoints)}


def test_ready_endpoints_are_used_sorted_by_address():
    got = usable([slice_(endpoint("10.244.0.9"), endpoint("10.244.0.10"), endpoint("10.244.0.3", ready=False))],
                 "http", "TCP")
    assert got == (("10.244.0.10", 8080), ("10.244.0.9", 8080))


def test_with_none_ready_serving_terminating_ones_take_the_traffic():
    going = endpoint("10.244.0.4", ready=False, serving=True, terminating=True)
    gone = endpoint("10.244.0.5", ready=False, serving=False, terminating=True)
    assert usable([slice_(going, gone, endpoint("10.244.0.6", ready=False, serving=False))], "http", "TCP") == \
        (("10.244.0.4", 8080),)
    assert usable([slice_(gone)], "http", "TCP") == ()


def test_nil_conditions_read_as_ready_and_ports_link_by_name():
    bare = {"addresses": ["10.244.0.7"]}
    assert usable([slice_(bare)], "http", "TCP") == (("10.244.0.7", 8080),)
    assert usable([slice_(bare, port_name="metrics")], "http", "TCP") == ()


def test_the_table_listens_on_cluster_ips_and_node_ports_and_skips_what_kube_proxy_skips():
    web = service(type="NodePort", sessionAffinity="ClientIP",
                  ports=[{"name": "http", "port": 80, "protocol": "TCP", "nodePort": 30080},
                         {"name": "dns", "port": 53, "protocol": "UDP"}])
    headless = service("db", clusterIP="None")
    external = service("ext", type="ExternalName", clusterIP=None)
    table = build([web, headless, external], [slice_(endpoint("10.244.0.2")), slice_(endpoint("10.244.0.3"),
                                                                                     service_name="db")])
    assert set(table) == {("10.96.0.20", 80, "TCP"), ("127.0.0.1", 30080, "TCP"), ("10.96.0.20", 53, "UDP")}
    port = table[("10.96.0.20", 80, "TCP")]
    assert (port.endpoints, port.affinity_s, port.service) == ((("10.244.0.2", 8080),), 10800, "default/web:http")


@pytest.mark.parametrize("address_type, address", [
    pytest.param("IPv6", "fd00::5", id="ipv6"),
    pytest.param("FQDN", "db.example.com", id="fqdn"),
])
def test_slices_of_another_family_are_skipped(address_type, address):
    built = build([service()], [slice_(endpoint("10.244.0.2")), slice_(endpoint(address), address_type=address_type)])
    assert built[("10.96.0.20", 80, "TCP")].endpoints == (("10.244.0.2", 8080),)


def test_a_service_whose_one_endpoint_is_its_own_address_is_not_forwarded():
    """`kubernetes`: the gateway listens on the ClusterIP itself (store/seeds.py); a DNAT would loop."""
    api = service("kubernetes", clusterIP="10.96.0.1", ports=[{"name": "https", "port": 443, "protocol": "TCP"}])
    own = slice_(endpoint("10.96.0.1"), service_name="kubernetes", port_name="https", port=443)
    assert build([api], [own]) == {}
    elsewhere = slice_(endpoint("10.244.0.5"), service_name="kubernetes", port_name="https", port=443)
    assert build([api], [elsewhere])[("10.96.0.1", 443, "TCP")].endpoints == (("10.244.0.5", 443),)
