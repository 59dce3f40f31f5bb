"""How a pod reaches the broker: `kube-system/kubus-broker` seeded on the service range's second address
with its own address as its endpoint (so the proxy forwards nothing for it), a container's KUBUS_AMQP_URL
naming it, and the gateway's relay behind it: bytes both ways, both sides closed, bounded. Pure logic and
a relay on the loopback (the ClusterIP bind needs root: tests/integration/cri/test_cri_broker.py)."""
from __future__ import annotations

import asyncio
import socket
import struct

import pytest

from actors.gateway.amqplogin import PROTOCOL_HEADER, Refused, login_user
from actors.gateway.brokerrelay import Relay, broker_of
from actors.kubelet.cri.containerd import mirrors
from actors.kubelet.podtoken import wants_bus_credential
from actors.proxy.table import build
from config.credentials import url_for_pod
from config.settings import Settings
from store.allocators import Allocation
from store.seeds import seed_broker_endpoints, seed_services
from store.state import State


@pytest.fixture
def state() -> State:
    s = State(lambda: 0.0, allocation=Allocation("10.96.0.0/28", "30000-30003"))
    s.seed_namespaces()
    return s


def test_kubus_broker_takes_the_second_address_and_names_itself_its_endpoint(state):
    seed_services(state, 443, 5672)
    broker = state.get("Service", "kube-system", "kubus-broker").obj
    assert broker["spec"]["clusterIP"] == "10.96.0.2" == Settings(service_cidr="10.96.0.0/12").broker_service_ip
    assert broker["spec"]["ports"] == [{"name": "amqp", "port": 5672, "protocol": "TCP", "targetPort": 5672}]
    assert "selector" not in broker["spec"]
    seed_broker_endpoints(state, "10.96.0.2", 5672)
    endpoints = state.get("Endpoints", "kube-system", "kubus-broker").obj
    assert endpoints["subsets"] == [{"addresses": [{"ip": "10.96.0.2"}],
                                     "ports": [{"name": "amqp", "port": 5672, "protocol": "TCP"}]}]
    endpoint_slice = state.get("EndpointSlice", "kube-system", "kubus-broker").obj
    assert endpoint_slice["metadata"]["labels"] == {"kubernetes.io/service-name": "kubus-broker"}
    services = [e.obj for (kind, _, _), e in state.objects.items() if kind == "Service"]
    assert ("10.96.0.2", 5672, "TCP") not in build(services, [endpoint_slice])  # the relay's own address
    seed_broker_endpoints(state, "172.20.0.2", 5672)  # a changed range: brought back to the new address
    moved = state.get("Endpoints", "kube-system", "kubus-broker").obj
    assert moved["subsets"][0]["addresses"] == [{"ip": "172.20.0.2"}]


def test_a_taken_second_address_leaves_the_broker_service_out(state):
    state.create("Service", "default", {"apiVersion": "v1", "kind": "Service",
                                        "metadata": {"name": "mine", "namespace": "default"},
                                        "spec": {"clusterIP": "10.96.0.2", "ports": [{"port": 80}]}})
    state.allocation.ips.used.add(state.allocation.ips.base + 1)
    seed_services(state, 443, 5672)
    assert ("Service", "kube-system", "kubus-broker") not in state.objects


@pytest.mark.parametrize("amqp_url, expected", [
    pytest.param("amqp://k:p@127.0.0.1:5672/", "amqp://sa%3Aa:s%2Fcret@10.96.0.2:5672/", id="one-node"),
    pytest.param("amqp://k:p@127.0.0.1:5701/kubus?heartbeat=5,amqp://k:p@127.0.0.1:5702/kubus",
                 "amqp://sa%3Aa:s%2Fcret@10.96.0.2:5672/kubus?heartbeat=5", id="first-of-a-cluster"),
])
def test_a_containers_broker_url_names_the_service(amqp_url, expected):
    assert url_for_pod(amqp_url, "sa:a", "s/cret", "10.96.0.2", 5672) == expected


def test_the_relay_forwards_to_the_first_broker_node():
    assert broker_of(Settings(amqp_url="amqp://u:p@10.0.0.5:5701/,amqp://u:p@10.0.0.6:5702/")) == ("10.0.0.5", 5701)
    assert broker_of(Settings(amqp_url="amqps://u:p@broker/")) == ("broker", 5671)


SA_USER = "kubus.sa.default.default"


def start_ok(user: str, password: str = "pw", mechanism: bytes = b"PLAIN") -> bytes:
    """The start-ok frame a client sends to log in (AMQP 0-9-1)."""
    response = b"\x00" + user.encode() + b"\x00" + password.encode()
    payload = struct.pack(">HHI", 10, 11, 0) + bytes([len(mechanism)]) + mechanism + \
        struct.pack(">I", len(response)) + response + b"\x05en_US"
    return struct.pack(">BHI", 1, 0, len(payload)) + payload + b"\xce"


@pytest.mark.parametrize("frame, expected", [
    pytest.param(start_ok(SA_USER), SA_USER, id="plain"),
    pytest.param(start_ok("guest", mechanism=b"AMQPLAIN"), "mechanism 'AMQPLAIN' (the relay takes PLAIN)",
                 id="amqplain"),
    pytest.param(struct.pack(">BHI", 1, 0, 8) + struct.pack(">HHI", 10, 11, 1000) + b"\xce", "a truncated start-ok",
                 id="truncated"),
    pytest.param(struct.pack(">BHI", 1, 0, 4) + struct.pack(">HH", 20, 10) + b"\xce",
                 "the first frame is not connection.start-ok", id="channel-open"),
])
def test_the_login_a_start_ok_names(frame, expected):
    if expected == SA_USER:
        assert login_user(frame) == SA_USER
        return
    with pytest.raises(Refused) as refused:
        login_user(frame)
    assert str(refused.value).startswith(expected)


async def _echo_server() -> tuple[asyncio.base_events.Server, tuple[str, int]]:
    async def echo(reader, writer):
        while data := await reader.read(1024):
            writer.write(data.upper())
            await writer.drain()
        writer.close()
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[:2]


async def _relay_to(target: tuple[str, int], bound: int) -> tuple[Relay, tuple[str, int]]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    relay = Relay(target, bound, "kubus")
    await relay.start(sock)
    return relay, sock.getsockname()[:2]


def test_the_relay_carries_bytes_both_ways_and_closes_both_sides():
    async def run():
        broker, target = await _echo_server()
        relay, address = await _relay_to(target, 4)
        reader, writer = await asyncio.open_connection(*address)
        writer.write(PROTOCOL_HEADER + start_ok(SA_USER) + b"x" * 200_000)
        writer.write_eof()  # the client's half-close reaches the broker, which then closes: so does the relay
        got = await asyncio.wait_for(reader.read(-1), 5)
        writer.close()
        await asyncio.wait_for(_until(lambda: relay.open == 0), 5)
        await relay.stop()
        broker.close()
        return got
    assert asyncio.run(run()) == (PROTOCOL_HEADER + start_ok(SA_USER) + b"x" * 200_000).upper()


@pytest.mark.parametrize("user", ["guest", "kubus.apiserver", "other.sa.default.default"])
def test_only_a_serviceaccount_of_the_cluster_logs_in_through_the_relay(user):
    """Relayed connections come from the host's loopback, where RabbitMQ trusts `guest`: the start-ok never
    reaches the broker (the header alone at most), and the pod's connection is closed."""
    async def run():
        received, ended = bytearray(), asyncio.Event()

        async def broker_side(reader, writer):
            try:
                while data := await reader.read(1024):
                    received.extend(data)
            except ConnectionError:
                pass
            writer.close()
            ended.set()
        broker = await asyncio.start_server(broker_side, "127.0.0.1", 0)
        relay, address = await _relay_to(broker.sockets[0].getsockname()[:2], 4)
        reader, writer = await asyncio.open_connection(*address)
        writer.write(PROTOCOL_HEADER + start_ok(user) + b"more")
        got = await asyncio.wait_for(reader.read(-1), 5)
        await asyncio.wait_for(ended.wait(), 5)
        writer.close()
        await relay.stop()
        broker.close()
        return got, bytes(received)
    got, received = asyncio.run(run())
    assert got == b"" and PROTOCOL_HEADER.startswith(received)


def test_past_its_bound_and_without_a_broker_the_relay_closes_the_connection():
    async def run():
        broker, target = await _echo_server()
        relay, address = await _relay_to(target, 1)
        first_reader, first_writer = await asyncio.open_connection(*address)
        first_writer.write(PROTOCOL_HEADER + start_ok(SA_USER))
        assert await asyncio.wait_for(first_reader.readexactly(8), 5) == PROTOCOL_HEADER
        second_reader, second_writer = await asyncio.open_connection(*address)
        refused = await asyncio.wait_for(second_reader.read(-1), 5)
        first_writer.close()
        second_writer.close()
        await relay.stop()
        broker.close()
        await broker.wait_closed()
        nowhere, nowhere_address = await _relay_to(target, 1)  # the broker gone: closed at once
        reader, writer = await asyncio.open_connection(*nowhere_address)
        gone = await asyncio.wait_for(reader.read(-1), 10)
        writer.close()
        await nowhere.stop()
        return refused, gone
    assert asyncio.run(run()) == (b"", b"")


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("fallback, docker_io, default", [
    pytest.param(False, 'server = "http://127.0.0.1:5000"\n\n', 'server = "http://127.0.0.1:5000"\n\n',
                 id="local-only"),
    pytest.param(True, 'server = "https://registry-1.docker.io"\n\n', "", id="upstream-after-local"),
])
def test_the_local_registry_is_tried_first_and_upstream_only_with_the_fallback(fallback, docker_io, default):
    local = '[host."http://127.0.0.1:5000"]\n  capabilities = ["pull", "resolve"]\n  skip_verify = true\n'
    assert mirrors("http://127.0.0.1:5000", fallback) == {"docker.io": docker_io + local, "_default": default + local}


TOKEN_VOLUME = {"name": "kube-api-access-x7k2p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}


@pytest.mark.parametrize("spec, wanted", [
    pytest.param({"volumes": [TOKEN_VOLUME]}, True, id="admitted-with-the-token-volume"),
    pytest.param({"volumes": [{"name": "data", "emptyDir": {}}]}, False, id="the-account-says-no-automount"),
    pytest.param({"automountServiceAccountToken": False, "volumes": [TOKEN_VOLUME]}, False, id="the-pod-says-no"),
    pytest.param({"automountServiceAccountToken": True}, True, id="the-pod-says-yes"),
])
def test_a_pod_gets_its_accounts_broker_credential_only_with_automount(spec, wanted):
    assert wants_bus_credential({"spec": {"serviceAccountName": "default", **spec}}) is wanted


def test_a_stopped_relay_closes_the_connections_it_carries():
    async def run():
        broker, target = await _echo_server()
        relay, address = await _relay_to(target, 4)
        reader, writer = await asyncio.open_connection(*address)
        writer.write(PROTOCOL_HEADER + start_ok(SA_USER))
        await asyncio.wait_for(reader.readexactly(8), 5)
        await asyncio.wait_for(relay.stop(), 5)
        try:
            await asyncio.wait_for(reader.read(-1), 5)  # what was on its way, then the end (or a reset)
        except ConnectionResetError:
            pass
        await asyncio.wait_for(_until(lambda: relay.open == 0), 5)
        writer.close()
        broker.close()
        return reader.at_eof() or reader.exception() is not None
    assert asyncio.run(run())
