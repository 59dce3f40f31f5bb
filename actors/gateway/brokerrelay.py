"""Where pods reach the broker: `kube-system/kubus-broker`'s ClusterIP, port 5672 (Settings.broker_service_ip),
relayed byte for byte to the broker of the cluster's settings (RabbitMQ listens on the host's loopback,
which inside a pod's network namespace is the pod's own). The relay reads nothing of what it carries:
the broker authenticates each connection, and a pod holds only its ServiceAccount's broker credential,
so it can do on the bus what that user may and nothing more (docs/security.md, "In-cluster access").
One exception, the login: every relayed connection reaches the broker from the host's loopback, where
RabbitMQ trusts its loopback-only users (`guest`), so the relay reads the client's first frame and lets
only this cluster's ServiceAccount users through (amqplogin.py).

It lives in the gateway's process, beside the pod listener of the `kubernetes` Service (listen.py): the
same address family, the same root-only FREEBIND bind before the proxy makes the service range local,
no bus identity of its own (so no broker user, no RBAC role, no supervisor line). Bounded: past
`broker_relay_max_connections` a new connection is closed at once."""
from __future__ import annotations

import asyncio
import socket
from urllib.parse import urlparse

import structlog

from actors.gateway.amqplogin import PROTOCOL_HEADER, Refused, login_user, ours, read_frame
from actors.gateway.listen import service_socket
from config.settings import BROKER_SERVICE_PORT, Settings
from config.urls import first

log = structlog.get_logger()
CHUNK = 64 * 1024
CONNECT_TIMEOUT_S = 5.0
LOGIN_TIMEOUT_S = 10.0  # RabbitMQ's own handshake timeout


def broker_of(settings: Settings) -> tuple[str, int]:
    """The broker node the relay forwards to: the first of the cluster's URL list."""
    url = urlparse(first(settings.amqp_url))
    return url.hostname or "127.0.0.1", url.port or (5671 if url.scheme == "amqps" else 5672)


def relay_socket(settings: Settings) -> socket.socket | None:
    """The listening socket on the broker Service's ClusterIP, or None (saying why) without root."""
    address = (settings.broker_service_ip, BROKER_SERVICE_PORT)
    sock = service_socket(address, "gateway.no_broker_relay",
                          "pods reach the broker through `kubus-broker` only when the gateway runs as root")
    if sock is None:
        return None
    sock.setblocking(False)
    return sock


class Relay:
    """Each accepted connection piped to a new connection to `target`, both ways, until both ends are done,
    once it logs in as one of `cluster`'s ServiceAccount users."""

    def __init__(self, target: tuple[str, int], max_connections: int, cluster: str):
        self.target, self.max_connections, self.cluster = target, max_connections, cluster
        self.clients: set[asyncio.StreamWriter] = set()
        self.server: asyncio.base_events.Server | None = None

    @property
    def open(self) -> int:
        return len(self.clients)

    async def start(self, sock: socket.socket) -> None:
        self.server = await asyncio.start_server(self.serve, sock=sock)
        name = sock.getsockname()
        log.info("gateway.broker_relay", address=f"{name[0]}:{name[1]}", to=f"{self.target[0]}:{self.target[1]}")

    async def stop(self) -> None:
        """No new connections; the open ones reset (each pipe then closes its broker side)."""
        if self.server is not None:
            self.server.close()
        for writer in list(self.clients):
            writer.transport.abort()
        if self.server is not None:
            await self.server.wait_closed()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open >= self.max_connections:
            log.warning("gateway.broker_relay_full", client=_peer(writer), open=self.open)
            await _close(writer)
            return
        self.clients.add(writer)
        try:
            await self._relay(reader, writer)
        finally:
            self.clients.discard(writer)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(*self.target), CONNECT_TIMEOUT_S)
        except (OSError, asyncio.TimeoutError) as exc:
            log.warning("gateway.broker_unreachable", broker=f"{self.target[0]}:{self.target[1]}", why=str(exc))
            await _close(writer)
            return
        down = asyncio.ensure_future(_pipe(up_reader, writer))
        try:
            if await self._login(reader, up_writer, writer):
                await _pipe(reader, up_writer)
            else:
                up_writer.transport.abort()
            await down
        finally:
            down.cancel()
            await asyncio.gather(_close(up_writer), _close(writer))

    async def _login(self, reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter,
                     writer: asyncio.StreamWriter) -> bool:
        """The protocol header and the start-ok carried over if the login is a ServiceAccount's; else False."""
        try:
            header = await asyncio.wait_for(reader.readexactly(len(PROTOCOL_HEADER)), LOGIN_TIMEOUT_S)
            up_writer.write(header)  # the broker answers a wrong header itself (with its own, then closes)
            frame = await asyncio.wait_for(read_frame(reader), LOGIN_TIMEOUT_S)
            user = login_user(frame)
            if not ours(self.cluster, user):
                raise Refused(f"user {user!r} is not a ServiceAccount's")
        except Refused as exc:
            log.warning("gateway.broker_relay_refused", client=_peer(writer), why=str(exc))
            return False
        except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError, OSError):
            return False
        up_writer.write(frame)
        return True


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Bytes from one side to the other; the other's write half shut when this side ends (AMQP closes
    with a handshake of its own, so a half-close is rare); a reset ends both."""
    try:
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        writer.transport.abort()  # the far side then sees the reset too, and its pipe ends


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    try:
        await writer.wait_closed()
    except (ConnectionError, OSError):
        pass


def _peer(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername") or ("?", 0)
    return f"{peer[0]}:{peer[1]}"
