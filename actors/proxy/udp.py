"""UDP through the userspace proxy, as kube-proxy's old userspace mode did it: a socket per
ClusterIP:port; each client address gets a backend socket of its own to the endpoint chosen for it,
which carries the answers back and closes after an idle time (`--udp-timeout`, 250 ms there; longer
here so a slow answer is not lost)."""
from __future__ import annotations

import asyncio
from typing import Callable

IDLE_S = 5.0
Address = tuple[str, int]


class ServicePort(asyncio.DatagramProtocol):
    """The listening socket: datagrams in from clients, handed on through each client's session."""

    def __init__(self, choose: Callable[[str], Address | None]):
        self.choose = choose
        self.transport: asyncio.DatagramTransport | None = None
        self.sessions: dict[Address, Session] = {}

    def connection_made(self, transport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, client: Address) -> None:
        session = self.sessions.get(client)
        if session is None:
            endpoint = self.choose(client[0])
            if endpoint is None:
                return
            session = self.sessions[client] = Session(self, client)
            asyncio.get_running_loop().create_task(session.open(endpoint))
        session.send(data)

    def answer(self, data: bytes, client: Address) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.sendto(data, client)

    def close(self) -> None:
        for session in list(self.sessions.values()):
            session.close()
        if self.transport is not None:
            self.transport.close()


class Session(asyncio.DatagramProtocol):
    """One client's backend socket: its datagrams to the endpoint, the endpoint's back to it."""

    def __init__(self, port: ServicePort, client: Address):
        self.port, self.client = port, client
        self.transport: asyncio.DatagramTransport | None = None
        self.waiting: list[bytes] = []
        self.idle: asyncio.TimerHandle | None = None

    async def open(self, endpoint: Address) -> None:
        try:
            await asyncio.get_running_loop().create_datagram_endpoint(lambda: self, remote_addr=endpoint)
        except OSError:
            self.close()

    def connection_made(self, transport) -> None:
        self.transport = transport
        for data in self.waiting:
            transport.sendto(data)
        self.waiting = []
        self._touch()

    def send(self, data: bytes) -> None:
        if self.transport is None:
            self.waiting.append(data)
        else:
            self.transport.sendto(data)
            self._touch()

    def datagram_received(self, data: bytes, _addr) -> None:
        self.port.answer(data, self.client)
        self._touch()

    def error_received(self, exc: Exception) -> None:
        self.close()  # the endpoint refused (ICMP): the next datagram picks again

    def _touch(self) -> None:
        if self.idle is not None:
            self.idle.cancel()
        self.idle = asyncio.get_running_loop().call_later(IDLE_S, self.close)

    def close(self) -> None:
        self.port.sessions.pop(self.client, None)
        if self.idle is not None:
            self.idle.cancel()
        if self.transport is not None:
            self.transport.close()
