"""Traffic to a Service through the proxy actor (userspace mode: pods share the host's network, each
on its own 127.x address; ClusterIPs are made local to the host): a Deployment of 3 replicas behind
Service `web` (port 80 -> named targetPort `http`) — every replica serves, a replica that turns
unready leaves the rotation and comes back, no replica means refused connections, the NodePort
answers on the host, and the proxy's route is gone after it stops. The tests share one cluster
(`served_module`), in this order: the one that scales the Deployment to nothing comes after those
that need three replicas, and the one that stops the proxy comes last."""
from __future__ import annotations

import collections
import socket
import subprocess
import time

from testkit.waiting import wait_until
from testkit.webserver import REPLICAS, get, ready_pods

def answers(ip: str, port: int, count: int) -> collections.Counter:
    return collections.Counter(get(ip, port)[1] for _ in range(count))


def refused(ip: str, port: int) -> bool:
    try:
        get(ip, port, timeout=1)
    except ConnectionRefusedError:
        return True
    return False


def test_every_replica_serves_through_the_cluster_ip_and_the_node_port(served_module):
    client, service, _, _ = served_module
    ip = service["spec"]["clusterIP"]
    wait_until(lambda: len(answers(ip, 80, 30)) == REPLICAS, 20, what="all replicas behind the ClusterIP")
    spread = answers(ip, 80, 300)
    assert set(spread) == set(ready_pods(client))
    assert min(spread.values()) >= 60, spread  # each at least 20% of 300
    assert get("127.0.0.1", service["spec"]["ports"][0]["nodePort"])[0] == 200


def test_an_unready_replica_leaves_the_rotation_and_comes_back(served_module):
    client, service, flags, _ = served_module
    ip = service["spec"]["clusterIP"]
    wait_until(lambda: len(answers(ip, 80, 30)) == REPLICAS, 20, what="all replicas behind the ClusterIP")
    sick = ready_pods(client)[0]
    (flags / sick).touch()
    start = time.monotonic()
    wait_until(lambda: sick not in answers(ip, 80, 30), 10, what=f"{sick} to leave the rotation")
    left_after = time.monotonic() - start
    assert left_after <= 2.0 + 1.0, left_after  # 2 s, and a second of slack for the shared machine
    (flags / sick).unlink()
    wait_until(lambda: sick in answers(ip, 80, 30), 10, what=f"{sick} to come back")


ECHO = ("import os, socket\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((os.environ['POD_IP'], 5353))\n"
        "while True:\n"
        "    data, peer = s.recvfrom(4096); s.sendto(os.environ['POD_NAME'].encode() + b' ' + data, peer)\n")


def test_udp_reaches_the_endpoint_and_comes_back(served_module):
    client, _, _, _ = served_module
    env = [{"name": n, "valueFrom": {"fieldRef": {"fieldPath": f}}}
           for n, f in (("POD_IP", "status.podIP"), ("POD_NAME", "metadata.name"))]
    client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "echo", "labels": {"app": "echo"}},
                   "spec": {"containers": [{"name": "echo", "image": "python:3.11", "env": env,
                                            "command": ["python3", "-c", ECHO],
                                            "ports": [{"name": "dns", "containerPort": 5353, "protocol": "UDP"}]}]}})
    made = client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "echo"},
                          "spec": {"selector": {"app": "echo"},
                                   "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": "dns"}]}})
    ip = made["spec"]["clusterIP"]

    def echoed() -> str | None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.settimeout(1)
            sock.connect((ip, 53))
            sock.send(b"ping")
            return sock.recv(4096).decode()
    assert wait_until(echoed, 60, what="an answer through the ClusterIP") == "echo ping"


def test_no_replica_refuses_connections_and_scaling_up_serves_again(served_module):
    client, service, flags, _ = served_module
    ip = service["spec"]["clusterIP"]
    wait_until(lambda: get(ip, 80)[0] == 200, 20, what="the ClusterIP to answer")
    client.patch("Deployment", "web", {"spec": {"replicas": 0}}, "default")
    wait_until(lambda: not client.list("Pod", "default", label_selector="app=web").items, 30,
               what="the last replica to go")
    gone = time.monotonic()
    wait_until(lambda: refused(ip, 80), 20, what="the ClusterIP to refuse connections")
    assert time.monotonic() - gone <= 2.0 + 1.0  # 2 s, and a second of slack for the shared machine
    client.patch("Deployment", "web", {"spec": {"replicas": 2}}, "default")
    wait_until(lambda: len(answers(ip, 80, 20)) == 2, 60, what="two replicas to serve again")


def test_the_proxy_takes_its_route_away_when_it_stops(served_module):
    _, service, _, procs = served_module
    routes = subprocess.run(["ip", "route", "show", "table", "local", "10.96.0.0/12"], capture_output=True,
                            text=True).stdout
    assert routes.startswith("local 10.96.0.0/12")
    procs.proxy.terminate()
    procs.proxy.wait(10)
    assert not subprocess.run(["ip", "route", "show", "table", "local", "10.96.0.0/12"], capture_output=True,
                              text=True).stdout.strip()
