"""A pod's `exec` and `attach` (GET or POST, as kubectl sends them): a WebSocket of the channel protocol
(`v5.channel.k8s.io`, kubectl >= 1.30; `v4.channel.k8s.io`; and their `base64.` forms), or SPDY/3.1
streams (`v4.channel.k8s.io`, kubectl <= 1.29: spdyupgrade.py), relayed to the pod's kubelet as a
session over the bus (runtime/streams.py). Authorized by the apiserver as
`create pods/exec` / `pods/attach` when the session is asked for, so a refusal is an HTTP answer
before the upgrade, as kubectl expects (`unable to upgrade connection: …`)."""
from __future__ import annotations

import asyncio
import base64

from aiohttp import WSMsgType, web

from actors.gateway.paths import Target
from actors.gateway.spdyupgrade import open_session, take_over
from api.status import StatusError, bad_request
from runtime import spdy
from runtime.client import Client
from runtime.streams import OPEN_TIMEOUT_S, ClientStream

PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io", "base64.channel.k8s.io", "v4.base64.channel.k8s.io")
SPDY_PROTOCOLS = ("v4.channel.k8s.io",)
CLOSE = 255  # v5: `[255, channel]` closes that channel (stdin)
TRUE = ("1", "true", "True")


def options_of(request: web.Request, verb: str) -> dict:
    """The subresource's query as the session's options (Kubernetes' PodExecOptions / PodAttachOptions)."""
    query = request.query
    options = {name: query.get(name) in TRUE for name in ("stdin", "stdout", "stderr", "tty")}
    if query.get("container"):
        options["container"] = query["container"]
    if verb == "exec":
        options["command"] = query.getall("command", [])
        if not options["command"]:
            raise bad_request("you must specify at least 1 command")
    if not any(options[name] for name in ("stdin", "stdout", "stderr")):
        raise bad_request("you must specify at least 1 of stdin, stdout, stderr")
    return options


async def serve(request: web.Request, client: Client, target: Target, verb: str) -> web.StreamResponse:
    options = options_of(request, verb)
    ws = web.WebSocketResponse(protocols=PROTOCOLS, autoping=True, max_msg_size=0)
    stream, websocket = await open_session(request, ws, client, verb, target, options, SPDY_PROTOCOLS)
    if not websocket:
        return await _serve_spdy(request, stream, options)
    await ws.prepare(request)
    protocol = ws.ws_protocol or ""
    try:
        await _relay(ws, stream, protocol)
    finally:
        stream.close()
        await ws.close()
    return ws


async def _serve_spdy(request: web.Request, stream: ClientStream, options: dict) -> web.StreamResponse:
    """The same session for a SPDY client (v4.channel.k8s.io): its streams by type, as it opens them."""
    loop = asyncio.get_running_loop()
    streams = {name: loop.create_future() for name in ("error", "stdin", "stdout", "stderr", "resize")}

    def opened(s: spdy.Stream) -> None:
        future = streams.get(s.headers.get("streamtype", ""))
        if future is not None and not future.done():
            future.set_result(s)
    connection, response = await take_over(request, SPDY_PROTOCOLS[0], opened)
    tasks = [asyncio.ensure_future(connection.run()), asyncio.ensure_future(_spdy_to_client(streams, stream))]
    pumps = [asyncio.ensure_future(_spdy_to_pod(streams[name], stream, channel))
             for name, channel in (("stdin", 0), ("resize", 4)) if options.get("tty" if channel else "stdin")]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for future in streams.values():
            if future.done() and not connection.done.is_set():
                await future.result().close()
    finally:
        for task in [*tasks, *pumps]:
            task.cancel()
        stream.close()
        connection.close_transport()
    return response


async def _spdy_to_pod(opened: asyncio.Future, stream: ClientStream, channel: int) -> None:
    source = await opened
    while (data := await source.read()) is not None:
        await stream.send(channel, data)
    if channel == 0:
        await stream.send(CLOSE, b"\x00")


async def _spdy_to_client(streams: dict[str, asyncio.Future], stream: ClientStream) -> None:
    while True:
        frame = await stream.next()
        if isinstance(frame, StatusError) or frame.get("end"):
            return
        name = {1: "stdout", 2: "stderr", 3: "error"}.get(frame["c"])
        if name is not None:
            await (await asyncio.wait_for(asyncio.shield(streams[name]), OPEN_TIMEOUT_S)).write(frame["d"])


async def _relay(ws: web.WebSocketResponse, stream: ClientStream, protocol: str) -> None:
    b64 = protocol.startswith("base64") or ".base64." in protocol
    # the readiness message kubectl waits for: an empty frame on the first output channel
    await _send(ws, 1, b"", b64)
    tasks = [asyncio.ensure_future(_to_pod(ws, stream, protocol, b64)), asyncio.ensure_future(_to_client(ws, stream, b64))]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if tasks[0] in done:  # the person went away: the pod's side ends too
            return
        await tasks[1]
    finally:
        for task in tasks:
            task.cancel()


async def _to_pod(ws: web.WebSocketResponse, stream: ClientStream, protocol: str, b64: bool) -> None:
    async for message in ws:
        if message.type == WSMsgType.BINARY:
            data = message.data
        elif message.type == WSMsgType.TEXT and b64:
            data = message.data[:1].encode() + base64.b64decode(message.data[1:])
            data = bytes([data[0] - ord("0")]) + data[1:]
        else:
            continue
        if len(data) < 1:
            continue
        if data[0] == CLOSE and not protocol.startswith("v5"):
            continue
        await stream.send(data[0], data[1:])


async def _to_client(ws: web.WebSocketResponse, stream: ClientStream, b64: bool) -> None:
    while True:
        frame = await stream.next()
        if isinstance(frame, StatusError) or frame.get("end"):
            return
        await _send(ws, frame["c"], frame["d"], b64)


async def _send(ws: web.WebSocketResponse, channel: int, data: bytes, b64: bool) -> None:
    if b64:
        await ws.send_str(chr(ord("0") + channel) + base64.b64encode(data).decode())
    else:
        await ws.send_bytes(bytes([channel]) + data)
