"""The ingress controller actor in front of a Deployment's Service and a selector-less Service whose
endpoint is a server in this test: Host and path routing, 404 where no rule matches, 503 for a
Service without ready endpoints, X-Forwarded-For/Host/Proto, a streamed body both ways, and
`status.loadBalancer.ingress` set."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from testkit.hosts import free_port
from testkit.waiting import wait_until
from testkit.webserver import get

INGRESS_CLASS = {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
                 "metadata": {"name": "kubus", "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
                 "spec": {"controller": "kubus.io/ingress-controller"}}


def backend(service: str, port: int) -> dict:
    return {"service": {"name": service, "port": {"number": port}}}


SHOP = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "shop"},
        "spec": {"rules": [{"host": "shop.example", "http": {"paths": [
            {"path": "/api", "pathType": "Prefix", "backend": backend("web", 80)},
            {"path": "/echo", "pathType": "Prefix", "backend": backend("echo", 80)},
            {"path": "/empty", "pathType": "Exact", "backend": backend("empty", 80)}]}}]}}


class Echo(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        answer = json.dumps({"headers": dict(self.headers), "size": len(body), "tail": body[-8:].decode()}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


@pytest.fixture
def echo_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def selectorless(client, name: str, address: str | None, port: int) -> None:
    client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                   "spec": {"ports": [{"name": "http", "port": 80, "targetPort": port}]}})
    if address:
        client.create({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                       "metadata": {"name": f"{name}-manual", "labels": {"kubernetes.io/service-name": name}},
                       "addressType": "IPv4", "ports": [{"name": "http", "port": port, "protocol": "TCP"}],
                       "endpoints": [{"addresses": [address]}]})


def test_the_ingress_routes_by_host_and_path(served, procs, echo_server):
    client, _, _ = served
    port = free_port()
    procs.start("actors.ingress", KUBUS_INGRESS_ADDRESS=f"127.0.0.1:{port}")
    made_class = wait_until(lambda: client.get("IngressClass", "kubus"), 30, what="the controller's own class")
    assert made_class["metadata"]["annotations"] == INGRESS_CLASS["metadata"]["annotations"]  # the default
    assert made_class["spec"] == INGRESS_CLASS["spec"]
    selectorless(client, "echo", "127.0.0.1", echo_server)
    selectorless(client, "empty", None, 9)
    made = client.create(SHOP)
    assert made["spec"]["ingressClassName"] == "kubus"  # DefaultIngressClass

    status, body = wait_until(lambda: (r := get("127.0.0.1", port, host="shop.example", path="/api/items"))[0] == 200
                              and r, 30, what="the ingress to route /api")
    assert body.startswith("web-")
    assert get("127.0.0.1", port, host="shop.example", path="/other") == (404, "default backend - 404")
    assert get("127.0.0.1", port, host="blog.example", path="/api")[0] == 404
    assert get("127.0.0.1", port, host="shop.example", path="/empty")[0] == 503

    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    payload = b"x" * (3 << 20) + b"the-end!"
    conn.request("POST", "/echo/upload", body=payload, headers={"Host": "shop.example:8080",
                                                                 "X-Forwarded-For": "203.0.113.7"})
    seen = json.loads(conn.getresponse().read())
    conn.close()
    assert (seen["size"], seen["tail"]) == (len(payload), "the-end!")
    assert seen["headers"]["X-Forwarded-For"] == "203.0.113.7, 127.0.0.1"
    assert (seen["headers"]["X-Forwarded-Host"], seen["headers"]["X-Forwarded-Proto"]) == ("shop.example:8080",
                                                                                          "http")
    status = wait_until(lambda: (client.get("Ingress", "shop").get("status") or {}).get("loadBalancer"), 30,
                        what="the Ingress's status")
    assert status["ingress"] == [{"ip": "127.0.0.1", "ports": [{"port": port, "protocol": "TCP"}]}]
