"""A pod reaches the bus as its ServiceAccount on a cri node: its KUBUS_AMQP_URL names `kube-system/kubus-broker`
(the service range's second address, where the gateway relays to the broker); a stdlib AMQP 0-9-1 client in
the pod (the image has no pika) logs in with it — connection.open-ok as the account's broker user — and is
refused what that user may not do (declaring a queue: 403 ACCESS_REFUSED naming the user), and refused a
wrong password. A pod with automountServiceAccountToken: false (its own, or its account's) gets no
credential, and `guest:guest`, which RabbitMQ trusts from the loopback the relay connects from, is
refused at the relay. One cri cluster, proxy and gateway for the module: each test's pods (and account)
have names of their own."""
from __future__ import annotations

import json
from urllib.parse import unquote, urlparse

import pytest

from actors.proxy import nftables
from config.identities import sa_broker_user
from config.urls import first
from testkit.waiting import wait_until
from tests.integration.cri.served import served_cri_cluster
from tests.integration.cri.test_cri_incluster import PYTHON, _exec
from tests.integration.cri.test_cri_pods import pod, state

pytestmark = pytest.mark.skipif(not nftables.available(), reason="the proxy's rules need `nft`")
AMQP = r"""
import json, os, socket, struct, sys, urllib.parse

def recv(s, n):
    data = b""
    while len(data) < n:
        more = s.recv(n - len(data))
        if not more:
            raise EOFError
        data += more
    return data

def read(s):
    kind, channel, size = struct.unpack(">BHI", recv(s, 7))
    body = recv(s, size + 1)[:-1]
    return struct.unpack(">HH", body[:4]), body[4:]

def send(s, channel, cls, method, args=b""):
    payload = struct.pack(">HH", cls, method) + args
    s.sendall(struct.pack(">BHI", 1, channel, len(payload)) + payload + b"\xce")

def short(text):
    return bytes([len(text.encode())]) + text.encode()

def session(url, password=None):
    u = urllib.parse.urlparse(url)
    user, password = urllib.parse.unquote(u.username), password or urllib.parse.unquote(u.password)
    vhost = urllib.parse.unquote(u.path[1:]) if u.path not in ("", "/") else "/"
    s = socket.create_connection((u.hostname, u.port), timeout=10)
    s.sendall(b"AMQP\x00\x00\x09\x01")
    read(s)  # connection.start
    plain = b"\x00" + user.encode() + b"\x00" + password.encode()
    send(s, 0, 10, 11, struct.pack(">I", 0) + short("PLAIN") + struct.pack(">I", len(plain)) + plain + short("en_US"))
    try:
        method, args = read(s)
    except (EOFError, ConnectionError):
        return {"user": user, "login": "closed"}
    if method != (10, 30):
        return {"user": user, "login": repr(method)}
    send(s, 0, 10, 31, struct.pack(">HIH", *struct.unpack(">HIH", args[:8])[:2], 0))
    send(s, 0, 10, 40, short(vhost) + short("") + b"\x00")
    method, _ = read(s)
    if method != (10, 41):
        return {"user": user, "login": repr(method)}
    send(s, 1, 20, 10, short(""))
    read(s)  # channel.open-ok
    send(s, 1, 50, 10, struct.pack(">H", 0) + short("stolen") + b"\x00" + struct.pack(">I", 0))
    method, args = read(s)
    code = struct.unpack(">H", args[:2])[0] if method == (20, 40) else 0
    return {"user": user, "login": "open", "declare": [code, args[3:3 + args[2]].decode() if code else repr(method)]}

url = os.environ.get("KUBUS_AMQP_URL")
if url:
    print(json.dumps(session(url)))
    print(json.dumps(session(url, password="wrong")))
else:
    print(json.dumps({"url": None}))
    print(json.dumps(session("amqp://guest:guest@" + sys.argv[1] + ":5672/")))
"""


@pytest.fixture(scope="module")
def node(amqp_url, tmp_path_factory, request):
    """A cri cluster of the module's, with a service range of its own, the proxy and the gateway:
    `.client`, `.settings` (as admin), `.broker_ip` (kube-system/kubus-broker's address)."""
    with served_cri_cluster(amqp_url, tmp_path_factory, request, KUBUS_GATEWAY_LOGIN_TTL_S="1") as shared:
        shared.broker_ip = shared.settings.with_(service_cidr=shared.procs.env["KUBUS_SERVICE_CIDR"]).broker_service_ip
        yield shared


def _run(client, name: str, *args: str) -> list[dict]:
    ran = _exec(client, name, ["python3", "-c", AMQP, *args])
    return [json.loads(line) for line in ran.stdout.decode().splitlines()] or [ran.stderr.decode()]


def test_a_pod_logs_in_to_the_broker_as_its_serviceaccount(node):
    client, settings = node.client, node.settings
    service = client.get("Service", "kubus-broker", namespace="kube-system")  # seeded by the store
    assert service["spec"]["clusterIP"] == node.broker_ip and service["spec"]["ports"][0]["port"] == 5672
    client.create(pod("bus", "sleep 3600", image=PYTHON))
    wait_until(lambda: state(client, "bus", "running"), 90, what="the pod to run")
    env = wait_until(lambda: (r := _exec(client, "bus", ["env"])).exit_code == 0 and r.stdout.decode(), 30, 0.2,
                     what="exec")
    assert f"@{node.broker_ip}:5672/" in env, env

    logged_in, wrong = _run(client, "bus")
    user = sa_broker_user(settings.cluster, "default", "default")
    vhost = _vhost(settings.amqp_url)
    assert logged_in == {"user": user, "login": "open", "declare": [
        403, f"ACCESS_REFUSED - access to queue 'stolen' in vhost '{vhost}' refused for user '{user}'"]}
    assert wrong == {"user": user, "login": "closed"}


@pytest.mark.parametrize("on_the_account", [False, True], ids=["pod-says-no", "account-says-no"])
def test_without_automount_a_pod_has_no_credential_and_guest_is_refused(node, on_the_account):
    client, name = node.client, "quiet-account" if on_the_account else "quiet-pod"
    quiet = pod(name, "sleep 3600", image=PYTHON)
    if on_the_account:
        client.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name},
                       "automountServiceAccountToken": False})
        quiet["spec"]["serviceAccountName"] = name
    else:
        quiet["spec"]["automountServiceAccountToken"] = False
    client.create(quiet)
    wait_until(lambda: state(client, name, "running"), 90, what="the pod to run")
    wait_until(lambda: _exec(client, name, ["true"]).exit_code == 0, 30, 0.2, what="exec")
    assert _run(client, name, node.broker_ip) == [{"url": None}, {"user": "guest", "login": "closed"}]


def _vhost(amqp_url: str) -> str:
    path = urlparse(first(amqp_url)).path
    return unquote(path[1:]) if path not in ("", "/") else "/"
