"""Service environment variables as the kubelet makes them (pkg/kubelet/envvars), pure logic."""
from __future__ import annotations

from actors.kubelet.serviceenv import linked, service_env


def svc(name: str, ip: str, *ports: dict) -> dict:
    return {"metadata": {"name": name}, "spec": {"clusterIP": ip, "ports": list(ports)}}


def test_kubernetes_documentation_example():
    env = service_env([svc("redis-primary", "10.0.0.11", {"port": 6379, "protocol": "TCP"})])
    assert env == {"REDIS_PRIMARY_SERVICE_HOST": "10.0.0.11", "REDIS_PRIMARY_SERVICE_PORT": "6379",
                   "REDIS_PRIMARY_PORT": "tcp://10.0.0.11:6379", "REDIS_PRIMARY_PORT_6379_TCP": "tcp://10.0.0.11:6379",
                   "REDIS_PRIMARY_PORT_6379_TCP_PROTO": "tcp", "REDIS_PRIMARY_PORT_6379_TCP_PORT": "6379",
                   "REDIS_PRIMARY_PORT_6379_TCP_ADDR": "10.0.0.11"}


def test_named_ports_headless_and_leading_digits():
    env = service_env([svc("web", "10.96.0.20", {"name": "http", "port": 80}, {"name": "dns-udp", "port": 53,
                                                                                   "protocol": "UDP"}),
                       svc("db", "None", {"port": 5432}), svc("3d.view", "10.96.0.21", {"port": 8080})])
    assert env["WEB_SERVICE_PORT_HTTP"] == "80" and env["WEB_SERVICE_PORT_DNS_UDP"] == "53"
    assert env["WEB_PORT_53_UDP"] == "udp://10.96.0.20:53" and env["WEB_PORT"] == "tcp://10.96.0.20:80"
    assert not any(k.startswith("DB_") for k in env)
    assert env["_3D_VIEW_SERVICE_HOST"] == "10.96.0.21"


def _in(namespace: str, *names: str) -> list[dict]:
    return [{"metadata": {"name": n, "namespace": namespace}, "spec": {"clusterIP": f"10.96.0.{i + 1}",
                                                                         "ports": [{"port": 443}]}}
            for i, n in enumerate(names)]


def test_the_master_service_is_linked_into_every_namespace_even_without_links():
    services = {"default": _in("default", "kubernetes", "web"), "team": _in("team", "db")}.get
    names = lambda got: sorted(s["metadata"]["name"] for s in got)
    assert names(linked(lambda ns: services(ns) or [], "team", True)) == ["db", "kubernetes"]
    assert names(linked(lambda ns: services(ns) or [], "team", False)) == ["kubernetes"]
    assert service_env(linked(lambda ns: services(ns) or [], "team", False))["KUBERNETES_SERVICE_HOST"] == "10.96.0.1"
    assert names(linked(lambda ns: services(ns) or [], "default", True)) == ["kubernetes", "web"]
