"""A pod's `portforward` (kubectl >= 1.31: SPDY/3.1 tunneled in WebSocket binary messages,
`SPDY/3.1+portforward.k8s.io`; older: `Upgrade: SPDY/3.1`, `portforward.k8s.io`): the gateway is the SPDY server kubectl talks to, and relays each
connection's streams (a request id: an error and a data stream for one port) to the pod's kubelet as
one session over the bus (runtime/streams.py; the kubelet's side is actors/kubelet/portforward.py).
Authorized by the apiserver as `create pods/portforward` when the session is asked for."""
from __future__ import annotations

import asyncio

import structlog
from aiohttp import WSMsgType, web

from actors.gateway.paths import Target
from actors.gateway.spdyupgrade import open_session, take_over
from api.status import StatusError, bad_request
from runtime import spdy
from runtime.client import Client
from runtime.streams import CLOSE, ClientStream

log = structlog.get_logger()
PROTOCOL = "SPDY/3.1+portforward.k8s.io"
SPDY_PROTOCOL = "portforward.k8s.io"
DATA, ERROR = 1, 3


def ports_of(request: web.Request) -> list[int]:
    """`ports` (repeated, or comma-separated) as Kubernetes reads PodPortForwardOptions."""
    ports = []
    for text in ",".join(request.query.getall("ports", [])).split(","):
        if not text.strip():
            continue
        if not text.strip().isdigit() or not 0 < int(text) < 65536:
            raise bad_request(f"invalid port {text!r}: ports must be integers between 1 and 65535")
        ports.append(int(text))
    return ports


async def serve(request: web.Request, client: Client, target: Target) -> web.StreamResponse:
    ports = ports_of(request)
    ws = web.WebSocketResponse(protocols=(PROTOCOL,), autoping=True, max_msg_size=0)
    stream, websocket = await open_session(request, ws, client, "portforward", target, {"ports": ports},
                                           (SPDY_PROTOCOL,))
    forwarding = Forwarding(stream)
    if not websocket:  # kubectl <= 1.30: SPDY on the connection itself
        connection, response = await take_over(request, SPDY_PROTOCOL, forwarding.opened)
        try:
            await forwarding.run(connection)
        finally:
            stream.close()
            connection.close_transport()
        return response
    await ws.prepare(request)
    try:
        await forwarding.run(spdy.Connection(_reader(ws), ws.send_bytes, client=False, on_stream=forwarding.opened))
    finally:
        stream.close()
        await ws.close()
    return ws


def _reader(ws: web.WebSocketResponse):
    async def read() -> bytes:
        while True:
            message = await ws.receive()
            if message.type == WSMsgType.BINARY and message.data:  # kubectl writes empty ones too
                return message.data
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return b""
    return read


class Forwarding:
    """kubectl's SPDY connection (as its server) and the bus session, by request id."""

    def __init__(self, stream: ClientStream):
        self.stream = stream
        self.streams: dict[tuple[str, int], spdy.Stream] = {}  # (request id, DATA|ERROR)
        self.pumps: list[asyncio.Future] = []
        self.connection: spdy.Connection | None = None

    async def run(self, connection: spdy.Connection) -> None:
        self.connection = connection
        tasks = [asyncio.ensure_future(connection.run()), asyncio.ensure_future(self._from_pod())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task.exception() is not None:
                    log.warning("gateway.portforward_failed", error=repr(task.exception()))
        finally:
            for task in [*tasks, *self.pumps]:
                task.cancel()

    def opened(self, stream: spdy.Stream) -> None:
        kind, request = stream.headers.get("streamtype"), stream.headers.get("requestid", "")
        port = stream.headers.get("port", "")
        if kind not in ("data", "error") or not port.isdigit():
            self.pumps.append(asyncio.ensure_future(self.connection.reset(stream)))
            return
        self.streams[(request, DATA if kind == "data" else ERROR)] = stream
        if kind == "data":
            self.pumps.append(asyncio.ensure_future(self._to_pod(stream, request, int(port))))

    async def _to_pod(self, stream: spdy.Stream, request: str, port: int) -> None:
        await self.stream.send(0, b"", r=request, p=port)  # opens the pair at the runtime
        while (data := await stream.read()) is not None:
            await self.stream.send(0, data, r=request)
        await self.stream.send(CLOSE, b"\x00", r=request)

    async def _from_pod(self) -> None:
        while True:
            frame = await self.stream.next()
            if isinstance(frame, StatusError) or frame.get("end"):
                return
            channel, data = frame.get("c"), frame.get("d") or b""
            key = (frame.get("r"), data[0] if channel == CLOSE and data else channel)
            target = self.streams.get(key)
            if target is None or target.closed:
                continue
            if channel == CLOSE:
                await target.close()
            else:
                await target.write(data)
