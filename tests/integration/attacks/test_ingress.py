"""Ingress hosts that belong to one namespace: tenant B, allowed to write Ingresses and Services in its
own namespace only, declares tenant A's host with a more specific path, and a defaultBackend; A's
traffic still reaches A's backend (or A's 404), B's Ingress gets a Warning Event saying why, and B's
own host is still served."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from api.times import rfc3339
from runtime.client import Client
from testkit.hosts import free_port
from testkit.waiting import wait_until
from tests.integration.test_front_door import namespace
from tests.integration.test_ingress import INGRESS_CLASS, backend
from testkit.people import as_person
from testkit.webserver import get

TENANT_B_WRITES = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "ingress-writer", "namespace": "team-b"},
                   "rules": [{"apiGroups": ["networking.k8s.io"], "resources": ["ingresses"], "verbs": ["*"]},
                             {"apiGroups": [""], "resources": ["services"], "verbs": ["*"]},
                             {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["*"]}]}
BOB_WRITES = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": "bob-writes", "namespace": "team-b"},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "ingress-writer"},
              "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "bob"}]}


def answering(text: str) -> ThreadingHTTPServer:
    body = text.encode()

    class Answer(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def service_at(client, ns: str, name: str, port: int) -> None:
    """A selector-less Service whose one endpoint is 127.0.0.1:`port`."""
    client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
                   "spec": {"ports": [{"name": "http", "port": 80, "targetPort": port}]}})
    client.create({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                   "metadata": {"name": f"{name}-manual", "namespace": ns,
                                "labels": {"kubernetes.io/service-name": name}},
                   "addressType": "IPv4", "ports": [{"name": "http", "port": port, "protocol": "TCP"}],
                   "endpoints": [{"addresses": ["127.0.0.1"]}]})


def an_ingress(ns: str, name: str, rules: list[dict], **spec) -> dict:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name, "namespace": ns},
            "spec": {"rules": rules, **spec}}


def http_rule(host: str, path: str, service: str) -> dict:
    return {"host": host, "http": {"paths": [{"path": path, "pathType": "Prefix", "backend": backend(service, 80)}]}}


@pytest.fixture
def tenants(cluster, procs, settings):
    """Tenant A's Ingress for shop.example (/shop → A's server), made by the admin; the ingress
    controller; bob, who may write Ingresses, Services and EndpointSlices in team-b only."""
    servers = {who: answering(who) for who in ("A", "B")}
    port = free_port()
    procs.start("actors.ingress", KUBUS_INGRESS_ADDRESS=f"127.0.0.1:{port}")
    for ns in ("team-a", "team-b"):
        cluster.create(namespace(ns))
    wait_until(lambda: cluster.get("IngressClass", INGRESS_CLASS["metadata"]["name"]), 30, what="the class")
    cluster.create(TENANT_B_WRITES)
    cluster.create(BOB_WRITES)
    service_at(cluster, "team-a", "shop", servers["A"].server_address[1])
    made = cluster.create(an_ingress("team-a", "shop", [http_rule("shop.example", "/shop", "shop")]))
    wait_until(lambda: get("127.0.0.1", port, host="shop.example", path="/shop") == (200, "A"), 30,
               what="A's Ingress served")
    stamp = made["metadata"]["creationTimestamp"]
    wait_until(lambda: rfc3339(time.time()) > stamp, 5, what="a later second")  # B is younger, not tied
    bob = Client(as_person(settings, "bob"), name="bob")
    service_at(bob, "team-b", "evil", servers["B"].server_address[1])
    yield port, bob
    bob.close()
    for server in servers.values():
        server.shutdown()


def warnings(cluster, reason: str) -> list[dict]:
    return [e for e in cluster.list("Event", "team-b").items if e["reason"] == reason]


def test_a_more_specific_path_on_another_namespaces_host_is_not_served(tenants, cluster):
    port, bob = tenants
    bob.create(an_ingress("team-b", "steal", [http_rule("shop.example", "/shop/checkout", "evil"),
                                              http_rule("b.example", "/", "evil")]))
    wait_until(lambda: get("127.0.0.1", port, host="b.example", path="/") == (200, "B"), 30,
               what="B's Ingress to be seen (its own host)")
    assert get("127.0.0.1", port, host="shop.example", path="/shop/checkout") == (200, "A")
    assert get("127.0.0.1", port, host="SHOP.example:80", path="/shop/checkout/pay") == (200, "A")
    event = wait_until(lambda: warnings(cluster, "HostAlreadyClaimed"), 30, what="a Warning Event on B's Ingress")[0]
    assert (event["type"], event["involvedObject"]["name"]) == ("Warning", "steal")
    assert 'host "shop.example" is claimed by an older Ingress in another namespace' in event["message"]


def test_a_default_backend_catches_no_claimed_host(tenants, cluster):
    port, bob = tenants
    bob.create(an_ingress("team-b", "catch-all", [http_rule("b.example", "/", "evil")],
                          defaultBackend=backend("evil", 80)))
    wait_until(lambda: get("127.0.0.1", port, host="b.example", path="/") == (200, "B"), 30,
               what="B's Ingress to be seen (its own host)")
    assert get("127.0.0.1", port, host="shop.example", path="/account") == (404, "default backend - 404")
    assert get("127.0.0.1", port, host="shop.example", path="/shop") == (200, "A")
    assert get("127.0.0.1", port, host="nobody.example", path="/") == (200, "B")  # the cluster's only default
