"""A pod's `exec` and `attach` (GET or POST, as kubectl sends them): a WebSocket of the channel protocol
(`v5.channel.k8s.io`, kubectl >= 1.30; `v4.channel.k8s.io`; and their `base64.` forms) relayed to the
pod's kubelet as a session over the bus (runtime/streams.py). Authorized by the apiserver as
`create pods/exec` / `pods/attach` when the session is asked for, so a refusal is an HTTP answer
before the upgrade, as kubectl expects (`unable to upgrade connection: …`)."""
from __future__ import annotations

import asyncio
import base64

from aiohttp import WSMsgType, web

from actors.gateway.paths import Target
from api.status import StatusError, bad_request
from runtime.client import Client
from runtime.streams import ClientStream

PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io", "base64.channel.k8s.io", "v4.base64.channel.k8s.io")
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
    probe = not ws.can_prepare(request).ok  # kubectl's SPDY fallback after a refused WebSocket: say why again
    stream = ClientStream(client, verb, target.namespace or "default", target.name or "",
                          {**options, "probe": probe})
    try:
        await stream.opened()
    except StatusError:
        stream.close()
        raise
    if probe:
        stream.close()
        raise StatusError("BadRequest", "Upgrade request required: this server speaks the WebSocket channel "
                                        f"protocols ({', '.join(PROTOCOLS[:2])}), not SPDY")
    await ws.prepare(request)
    protocol = ws.ws_protocol or ""
    try:
        await _relay(ws, stream, protocol)
    finally:
        stream.close()
        await ws.close()
    return ws


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
