"""The other half of kubectl's streams: `Upgrade: SPDY/3.1` (kubectl <= 1.29 for exec and attach, and
`KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false`; <= 1.30 for port-forward). The gateway answers 101 with the
stream protocol it picked from the client's `X-Stream-Protocol-Version`s and takes the connection
over as a SPDY server (runtime/spdy.py): aiohttp hands the upgraded bytes to a parser of ours, as it
does to its WebSocket reader."""
from __future__ import annotations

import asyncio

from aiohttp import web

from api.status import StatusError
from runtime import spdy
from runtime.client import Client
from runtime.streams import ClientStream

UPGRADE = "SPDY/3.1"


def wants_spdy(request: web.Request) -> bool:
    return request.headers.get("Upgrade", "").lower() == UPGRADE.lower()


def protocol_of(request: web.Request, supported: tuple[str, ...]) -> str:
    """The first of the client's stream protocols the gateway speaks; 403 as Kubernetes' `httpstream`
    answers a client that offers none of them."""
    offered = [p.strip() for value in request.headers.getall("X-Stream-Protocol-Version", []) for p in value.split(",")]
    chosen = next((p for p in offered if p in supported), None)
    if chosen is None:
        raise StatusError("Forbidden", f"unable to upgrade: unable to negotiate protocol: client supports {offered}, "
                                       f"server supports {list(supported)}")
    return chosen


async def open_session(request: web.Request, ws: web.WebSocketResponse, client: Client, verb: str, target,
                       options: dict, spdy_protocols: tuple[str, ...]) -> tuple[ClientStream, bool]:
    """Ask for the stream session before any upgrade, so that a refusal is an HTTP answer as kubectl
    expects; (the session, whether the client upgrades to a WebSocket rather than SPDY). A request that
    upgrades to neither only learns what would be refused (the session is a probe: nothing runs)."""
    websocket, spdy_ = ws.can_prepare(request).ok, wants_spdy(request)
    if spdy_ and not websocket:
        protocol_of(request, spdy_protocols)
    probe = not websocket and not spdy_
    stream = ClientStream(client, verb, target.namespace or "default", target.name or "", {**options, "probe": probe})
    try:
        await stream.opened()
    except StatusError:
        stream.close()
        raise
    if probe:
        stream.close()
        raise StatusError("BadRequest", "Upgrade request required")
    return stream, websocket


class _Bytes:
    """aiohttp's payload parser interface, feeding a queue (b"" at the end)."""

    def __init__(self):
        self.queue: asyncio.Queue = asyncio.Queue()

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        self.queue.put_nowait(bytes(data))
        return False, b""

    def feed_eof(self) -> None:
        self.queue.put_nowait(b"")


async def take_over(request: web.Request, protocol: str, on_stream) -> tuple[spdy.Connection, web.StreamResponse]:
    """Answer 101 and serve SPDY on the connection; the caller runs the Connection and returns the
    response (its transport closes with `close`)."""
    response = web.StreamResponse(status=101, headers={"Connection": "Upgrade", "Upgrade": UPGRADE,
                                                       "X-Stream-Protocol-Version": protocol})
    writer = await response.prepare(request)
    await writer.drain()
    transport, incoming = request.transport, _Bytes()
    request.protocol.set_parser(incoming)

    async def write(data: bytes) -> None:
        if transport is None or transport.is_closing():
            raise ConnectionResetError("the client went away")
        transport.write(data)

    connection = spdy.Connection(incoming.queue.get, write, client=False, on_stream=on_stream)
    connection.close_transport = lambda: transport.close() if transport is not None else None  # type: ignore
    return connection, response
