"""Three smaller holes: a ServiceAccount token for a pod that runs as no account, DNS over TCP held
open by idle connections, and an EndpointSlice of another address family freezing every Service's
forwarding rules."""
from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import dns.message
import dns.query
import pytest

from actors.apiserver.admission.serviceaccount import MIRROR_ANNOTATION
from actors.dns.tcp import MAX_CONNECTIONS
from actors.proxy import nftables
from api.status import StatusError
from runtime.client import Client
from testkit.hosts import free_port
from testkit.waiting import wait_until


def _pod(name: str, ns: str, **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, **meta},
            "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "busybox"}]}}


def _token(kubelet: Client, ns: str, account: str, pod: str) -> dict:
    return kubelet.request("token", "ServiceAccount", namespace=ns, name=account, options={"pod": pod})["object"]


def test_a_node_gets_no_token_for_a_pod_that_runs_as_no_account(cluster, node_1):
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "victim"}})
    cluster.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": "victim"}})
    # a mirror pod in the namespace, bound to node-1 (made by the admin here: the apiserver does not yet
    # let a kubelet make its own), runs as no account
    mirror = cluster.create(_pod("static-web", "victim", annotations={MIRROR_ANNOTATION: "node-1"}))
    assert "serviceAccountName" not in mirror["spec"]  # a mirror pod runs as no account
    with pytest.raises(StatusError) as refused:
        _token(node_1, "victim", "default", "static-web")
    assert (refused.value.reason, refused.value.code) == ("BadRequest", 400)
    assert refused.value.message == ('cannot bind token for serviceaccount "default" to pod running with different '
                                     'serviceaccount name.')
    # contained, and still served: a pod admitted in the namespace runs as `default`, and gets its token
    cluster.create(_pod("web", "victim"))
    token = _token(node_1, "victim", "default", "web")
    user, _, password = token["status"]["busCredential"].partition(":")  # the pod's bus identity: its account's
    assert user.endswith("victim.default") and password and token["status"]["token"].count(".") == 2


IDLE_CONNECTIONS = 3 * MAX_CONNECTIONS
THREADS_BESIDES_TCP = 30  # the actor's own: its connection, listeners, logging, answers in flight


def _ask(port: int, name: str, tcp: bool) -> list[str]:
    ask = dns.query.tcp if tcp else dns.query.udp
    reply = ask(dns.message.make_query(name, "A"), "127.0.0.1", port=port, timeout=2)
    return sorted(item.to_text() for rrset in reply.answer for item in rrset)


def _threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def test_idle_tcp_connections_cannot_hold_the_dns_actor(cluster, procs):
    port = free_port()
    actor = procs.start("actors.dns", KUBUS_DNS_ADDRESS=f"127.0.0.1:{port}")
    name = "kubernetes.default.svc.cluster.local"
    wait_until(lambda: _ask(port, name, tcp=False) == ["10.96.0.1"], 20, what="the DNS actor to answer")
    idle = []
    try:
        for _ in range(IDLE_CONNECTIONS):  # connected, and never a byte of a query
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        # accepted in order: once a later connection is answered, every idle one has been taken in
        assert _ask(port, name, tcp=True) == ["10.96.0.1"]
        assert _ask(port, name, tcp=False) == ["10.96.0.1"]
        assert _threads(actor.pid) <= MAX_CONNECTIONS + THREADS_BESIDES_TCP
    finally:
        for conn in idle:
            conn.close()
    assert _ask(port, name, tcp=True) == ["10.96.0.1"]  # and it goes on serving


def _service(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 80}]}}


def _slice(service: str, address_type: str, address: str) -> dict:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": address_type,
            "metadata": {"name": f"{service}-1", "labels": {"kubernetes.io/service-name": service}},
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
            "endpoints": [{"addresses": [address], "conditions": {"ready": True}}]}


def _rules(settings) -> str:
    return subprocess.run(["nft", "list", "table", "ip", nftables.table_name(settings.cluster)],
                          capture_output=True, text=True).stdout


@pytest.mark.skipif(not nftables.available(), reason="the proxy's nftables mode needs root and `nft`")
@pytest.mark.parametrize("address_type, address", [
    pytest.param("FQDN", "db.example.com", id="fqdn"),
    pytest.param("IPv6", "fd00::5", id="ipv6"),
])
def test_a_slice_of_another_family_does_not_freeze_every_services_rules(cluster, procs, settings, address_type,
                                                                         address):
    procs.start("actors.proxy", KUBUS_PROXY_MODE="nftables")
    cluster.create(_service("odd"))
    cluster.create(_slice("odd", address_type, address))
    web = cluster.create(_service("web"))
    cluster.create(_slice("web", "IPv4", "10.244.0.7"))
    rule = f"ip daddr {web['spec']['clusterIP']} tcp dport 80 goto svc-"
    wait_until(lambda: rule in _rules(settings), 20, what="web's rule in the proxy's table")
    assert "dnat to 10.244.0.7:8080" in _rules(settings)
    assert address not in _rules(settings)  # the other family's slice is skipped, not half-programmed
    cluster.patch("EndpointSlice", "web-1", {"endpoints": [{"addresses": ["10.244.0.8"], "conditions": {}}]})
    wait_until(lambda: "dnat to 10.244.0.8:8080" in _rules(settings), 20, what="the proxy to follow web's change")
