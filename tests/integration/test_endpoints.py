"""Pod addresses and endpoints with real processes: the node IPAM controller gives node-1 a podCIDR,
its kubelet gives each pod an address of it (on loopback: the process runtime shares the host's
network), and the EndpointSlice and Endpoints controllers follow the pods of a Service: named
target ports resolved per pod, readiness, a deleted pod leaving, a placeholder slice when none is left."""
from __future__ import annotations

import ipaddress

import pytest

from testkit.waiting import wait_until
from testkit.webserver import get, web_container
from testkit import cli

def web_pod(name: str, port_name: str = "http") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"containers": [web_container(port_name)], "terminationGracePeriodSeconds": 1}}


SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"tier": "front"}},
           "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}}


@pytest.fixture
def networked(node_cluster, procs):
    for name in ("nodeipam", "endpointslice", "endpoints", "gc"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    wait_until(lambda: node_cluster.get("Node", "node-1")["spec"].get("podCIDR"), 30, what="node-1's podCIDR")
    return node_cluster


def running_ips(client, names: tuple[str, ...]) -> dict[str, str] | None:
    """Each pod's address once all of them run."""
    pods = {n: client.get("Pod", n)["status"] for n in names}
    return {n: s["podIP"] for n, s in pods.items()} if all(s.get("phase") == "Running" for s in pods.values()) \
        else None


def slices_of(client, service: str) -> list[dict]:
    return client.list("EndpointSlice", "default", label_selector=f"kubernetes.io/service-name={service}").items


def ready_addresses(client, service: str) -> dict[str, int]:
    return {e["addresses"][0]: s["ports"][0]["port"] for s in slices_of(client, service)
            for e in s.get("endpoints") or [] if e["conditions"]["ready"]}


def networked_logs(procs, label: str):
    return (path.read_text() for path in sorted(procs.logdir.glob(f"{label}-*.log")))


def test_pods_get_addresses_of_their_nodes_range_and_serve_on_them(networked, procs):
    cidr = networked.get("Node", "node-1")["spec"]["podCIDR"]
    assert ipaddress.IPv4Network(cidr).subnet_of(ipaddress.IPv4Network("10.244.0.0/16"))
    for name in ("web-a", "web-b"):
        networked.create(web_pod(name))
    ips = wait_until(lambda: running_ips(networked, ("web-a", "web-b")), 30, what="two running pods")
    loopback = ipaddress.IPv4Network("127." + cidr.split(".", 1)[1])
    assert len(set(ips.values())) == 2 and all(ipaddress.IPv4Address(ip) in loopback for ip in ips.values())
    for name, ip in ips.items():
        assert wait_until(lambda ip=ip: get(ip, 8080), 30, what=f"{name} to listen") == (200, name)
    kubelet_log = next(networked_logs(procs, "kubelet"))
    assert "handler_failed" not in kubelet_log  # the node's range arriving before any pod broke the kubelet once


def test_endpoint_slices_and_endpoints_follow_the_services_pods(networked):
    networked.create(SERVICE)
    placeholder = wait_until(lambda: slices_of(networked, "web"), 30, what="the placeholder slice")
    assert [(s.get("endpoints"), s.get("ports")) for s in placeholder] == [(None, None)] or \
        [(s.get("endpoints") or [], s.get("ports") or []) for s in placeholder] == [([], [])]
    service = networked.get("Service", "web")
    for name in ("web-a", "web-b", "web-c"):
        networked.create(web_pod(name))
    ready = wait_until(lambda: (r := ready_addresses(networked, "web")) and len(r) == 3 and r, 60,
                       what="three ready endpoints")
    assert set(ready.values()) == {8080}
    [one] = slices_of(networked, "web")
    labels = one["metadata"]["labels"]
    assert labels == {"tier": "front", "kubernetes.io/service-name": "web",
                      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}
    assert one["metadata"]["ownerReferences"][0]["uid"] == service["metadata"]["uid"]
    assert one["metadata"]["name"].startswith("web-") and one["addressType"] == "IPv4"
    assert one["ports"] == [{"name": "http", "protocol": "TCP", "port": 8080}]
    assert sorted(e["targetRef"]["name"] for e in one["endpoints"]) == ["web-a", "web-b", "web-c"]
    assert all(e["nodeName"] == "node-1" for e in one["endpoints"])
    legacy = wait_until(lambda: (ep := networked.get("Endpoints", "web")).get("subsets") and
                        len(ep["subsets"][0].get("addresses") or []) == 3 and ep, 30, what="the Endpoints object")
    assert {a["ip"] for a in legacy["subsets"][0]["addresses"]} == set(ready)
    assert legacy["subsets"][0]["ports"] == [{"name": "http", "protocol": "TCP", "port": 8080}]

    networked.create(web_pod("web-other", port_name="metrics"))  # no port named http: its own group
    wait_until(lambda: any(not s.get("ports") and s.get("endpoints") for s in slices_of(networked, "web")), 30,
               what="a slice for the pod without the named port")
    networked.delete("Pod", "web-b")
    wait_until(lambda: "web-b" not in {e["targetRef"]["name"] for s in slices_of(networked, "web")
                                       for e in s.get("endpoints") or []}, 30, what="web-b to leave")
    networked.delete("Service", "web")
    wait_until(lambda: not slices_of(networked, "web"), 30, what="the slices to be collected with the Service")


def test_containers_see_the_services_of_their_namespace(networked, procs):
    web = networked.create(SERVICE)
    printer = {"name": "env", "image": "python:3.11", "command": [
        "python3", "-c", "import os, time; print(os.environ.get('WEB_SERVICE_HOST'), "
                         "os.environ.get('WEB_PORT_80_TCP'), flush=True); time.sleep(600)"]}
    networked.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "env-check"},
                      "spec": {"containers": [printer]}})
    ip = web["spec"]["clusterIP"]

    def logged() -> str:
        out = cli.kubus("logs", "env-check", env=procs.env)
        return out.stdout.strip()
    assert wait_until(logged, 30, what="the pod's output") == f"{ip} tcp://{ip}:80"
