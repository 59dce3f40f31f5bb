"""Service admission and allocation as Kubernetes answers them: defaults, validation messages, ClusterIP
and NodePort allocation with their errors, and what an update keeps (pure logic)."""
from __future__ import annotations

import pytest

from api.admission import admit
from api.status import StatusError
from store.allocators import Allocation, ip_pool, port_pool
from store.seeds import seed_api_endpoints, seed_services
from store.state import State


def svc(name="web", **spec) -> dict:
    spec.setdefault("ports", [{"port": 80}])
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def causes_of(obj: dict) -> list[str]:
    with pytest.raises(StatusError) as err:
        admit("Service", obj)
    assert err.value.reason == "Invalid"
    return [f"{c.field}: {c.message}" for c in err.value.causes]


def test_defaults_are_kubernetes_defaults():
    out = admit("Service", svc(sessionAffinity="ClientIP", type="NodePort"))["spec"]
    assert out["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert out["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    assert (out["externalTrafficPolicy"], out["internalTrafficPolicy"]) == ("Cluster", "Cluster")
    assert (out["ipFamilies"], out["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    assert admit("Service", svc())["spec"]["type"] == "ClusterIP"


@pytest.mark.parametrize("obj, expected", [
    pytest.param(svc(ports=[]), ["spec.ports: Required value"], id="no-ports"),
    pytest.param(svc(ports=[{"port": 80}, {"name": "b", "port": 81}]), ["spec.ports[0].name: Required value"],
                 id="unnamed-of-many"),
    pytest.param(svc(ports=[{"port": 0}]), ["spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, "
                                            "inclusive"], id="port-range"),
    pytest.param(svc(ports=[{"port": 80, "protocol": "HTTP"}]),
                 ['spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'],
                 id="protocol"),
    pytest.param(svc(ports=[{"name": "a", "port": 80}, {"name": "a", "port": 81}]),
                 ['spec.ports[1].name: Duplicate value: "a"'], id="duplicate-name"),
    pytest.param(svc(ports=[{"port": 80, "nodePort": 30080}]),
                 ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"], id="nodeport-on-ip"),
    pytest.param(svc(type="NodePort", clusterIP="None"),
                 ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services'],
                 id="headless-nodeport"),
    pytest.param(svc(type="ExternalName", externalName="db.example.com", clusterIP="10.96.0.5"),
                 ["spec.clusterIPs: Forbidden: may not be set for ExternalName services"], id="externalname-ip"),
    pytest.param(svc(type="ExternalName"), ["spec.externalName: Required value"], id="externalname-required"),
    pytest.param(svc(sessionAffinity="Sticky"),
                 ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"'],
                 id="affinity"),
    pytest.param(svc(sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {"timeoutSeconds": 0}}),
                 ["spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 "
                  "and less than 86400"], id="affinity-timeout"),
    pytest.param(svc(externalTrafficPolicy="Local"),
                 ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible '
                  'services'], id="etp-on-clusterip"),
    pytest.param(svc(ports=[{"port": 80, "targetPort": "http--x"}]),
                 ['spec.ports[0].targetPort: Invalid value: "http--x": must not contain consecutive hyphens'],
                 id="target-port-name"),
    pytest.param(svc(clusterIP="10.96.0.7", clusterIPs=["10.96.0.8"]),
                 ['spec.clusterIPs: Invalid value: ["10.96.0.8"]: first value must match `clusterIP`'], id="ips"),
])
def test_validation_speaks_kubernetes(obj, expected):
    assert causes_of(obj) == expected


def test_a_service_name_is_a_dns_1035_label():
    assert causes_of(svc(name="1web"))[0].startswith('metadata.name: Invalid value: "1web": a DNS-1035 label')


def test_pools_keep_network_broadcast_and_the_static_band_out_of_dynamic_picks():
    pool = ip_pool("10.96.0.0/12")
    assert (pool.base, pool.size, pool.offset) == (int(ip("10.96.0.1")), 2 ** 20 - 2, 256)
    small = ip_pool("10.0.0.0/29")
    small.used.update(range(small.base, small.base + small.size - 1))
    assert small.take() == small.base + small.size - 1
    small.used.add(small.take())
    assert small.take() is None
    assert port_pool("30000-32767").offset == 86
    assert all(port_pool("30000-32767").take() >= 30086 for _ in range(50))


def ip(text: str):
    import ipaddress
    return ipaddress.IPv4Address(text)


@pytest.fixture
def state() -> State:
    s = State(lambda: 0.0, allocation=Allocation("10.96.0.0/28", "30000-30003"))
    s.seed_namespaces()
    return s


def stored(state: State, obj: dict) -> dict:
    return state.create("Service", "default", admit("Service", obj)).obj


def test_a_taken_or_foreign_cluster_ip_is_refused_in_kubernetes_words(state):
    first = stored(state, svc("a"))
    assert ip(first["spec"]["clusterIP"]) in __import__("ipaddress").IPv4Network("10.96.0.0/28")
    for wanted, why in ((first["spec"]["clusterIP"], "provided IP is already allocated"),
                        ("1.1.1.1", "the provided network does not match the current range")):
        with pytest.raises(StatusError) as err:
            stored(state, svc("b", clusterIP=wanted))
        assert err.value.message.startswith('Service "b" is invalid: spec.clusterIPs: Invalid value: ')
        assert err.value.causes[0].message == f'Invalid value: ["{wanted}"]: failed to allocate IP {wanted}: {why}'


def test_the_range_runs_full_and_a_delete_gives_the_ip_back(state):
    made = [stored(state, svc(f"s{i}")) for i in range(14)]  # a /28: 14 usable addresses
    with pytest.raises(StatusError) as err:
        stored(state, svc("one-more"))
    assert (err.value.reason, err.value.message) == (
        "InternalError", "Internal error occurred: failed to allocate a serviceIP: range is full")
    state.delete("Service", "default", "s3", {})
    assert stored(state, svc("one-more"))["spec"]["clusterIP"] == made[3]["spec"]["clusterIP"]


def test_node_ports_are_given_shared_by_number_and_refused_when_taken_or_out_of_range(state):
    dns = stored(state, svc("dns", type="NodePort", ports=[{"name": "udp", "port": 53, "protocol": "UDP"},
                                                          {"name": "tcp", "port": 53, "protocol": "TCP"}]))
    first, second = (p["nodePort"] for p in dns["spec"]["ports"])
    assert first == second and 30000 <= first <= 30003
    for wanted, why in ((first, "provided port is already allocated"),
                        (80, "provided port is not in the valid range. The range of valid ports is 30000-30003")):
        with pytest.raises(StatusError) as err:
            stored(state, svc("web", type="NodePort", ports=[{"port": 80, "nodePort": wanted}]))
        assert [(c.field, c.message) for c in err.value.causes] == [
            ("spec.ports[0].nodePort", f"Invalid value: {wanted}: {why}")]


def test_an_update_keeps_what_it_leaves_out_and_may_not_move_the_ip(state):
    made = stored(state, svc("web", type="NodePort"))
    again = state.update("Service", "default", admit("Service", svc("web", type="NodePort")), None).obj
    assert again["spec"]["clusterIP"] == made["spec"]["clusterIP"]
    assert again["spec"]["ports"][0]["nodePort"] == made["spec"]["ports"][0]["nodePort"]
    other = "10.96.0.2" if made["spec"]["clusterIP"] != "10.96.0.2" else "10.96.0.3"
    with pytest.raises(StatusError) as err:
        state.update("Service", "default", admit("Service", svc("web", type="NodePort", clusterIP=other)), None)
    assert err.value.causes[0].message == f'Invalid value: ["{other}"]: may not change once set'


def test_switching_to_external_name_frees_the_ip_and_ports(state):
    made = stored(state, svc("web", type="NodePort"))
    state.update("Service", "default", admit("Service", svc("web", type="ExternalName", ports=[],
                                                             externalName="db.example.com")), None)
    assert not state.allocation.ips.used and not state.allocation.ports.used
    again = stored(state, svc("next", clusterIP=made["spec"]["clusterIP"]))
    assert again["spec"]["clusterIPs"] == [made["spec"]["clusterIP"]]


def test_kubernetes_takes_the_first_address_and_kube_dns_the_tenth(state):
    seed_services(state, 443, 5672)
    kubernetes = state.get("Service", "default", "kubernetes").obj
    assert kubernetes["spec"]["clusterIP"] == "10.96.0.1"
    assert kubernetes["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 443}]
    dns = state.get("Service", "kube-system", "kube-dns").obj
    assert dns["spec"]["clusterIP"] == "10.96.0.10" and "selector" not in dns["spec"]
    assert [(p["name"], p["port"], p["protocol"]) for p in dns["spec"]["ports"]] == [("dns", 53, "UDP"),
                                                                                  ("dns-tcp", 53, "TCP")]


def test_kubernetes_endpoints_name_the_gateways_address_and_come_back_to_it(state):
    """The master endpoint: made when missing, brought back to the address at the next start."""
    seed_api_endpoints(state, "10.96.0.1", 443)
    endpoints = state.get("Endpoints", "default", "kubernetes").obj
    assert endpoints["subsets"] == [{"addresses": [{"ip": "10.96.0.1"}],
                                     "ports": [{"name": "https", "port": 443, "protocol": "TCP"}]}]
    endpoint_slice = state.get("EndpointSlice", "default", "kubernetes").obj
    assert endpoint_slice["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert endpoint_slice["endpoints"][0]["addresses"] == ["10.96.0.1"]
    rev = state.rev
    seed_api_endpoints(state, "10.96.0.1", 443)
    assert state.rev == rev  # as wanted: untouched
    seed_api_endpoints(state, "172.20.0.1", 443)
    assert state.get("EndpointSlice", "default", "kubernetes").obj["endpoints"][0]["addresses"] == ["172.20.0.1"]
    assert state.get("Endpoints", "default", "kubernetes").obj["subsets"][0]["addresses"] == [{"ip": "172.20.0.1"}]
