"""Whether a broker user may log in: AMQP's handshake on asyncio as far as opening the URL's vhost, then
closed. No connection is kept, no thread is held, a refusal is not retried: what the gateway asks for a
bearer token it does not trust (yet, or any more)."""
from __future__ import annotations

import asyncio
import contextlib
import struct

import pika
from pika import frame, spec

from config.urls import split

PROTOCOL = frame.ProtocolHeader().marshal()
HEAD = struct.Struct(">BHI")  # a frame's type, channel and payload size
MAX_FRAME = 1 << 17  # the broker's handshake frames are a few hundred bytes
CAPABILITIES = {"authentication_failure_close": True}  # a refused login is told (403), not just hung up on


async def may_log_in(url: str, timeout: float, name: str) -> bool:
    """True when the broker takes the URL's credentials and lets its user open the vhost; False when it
    refuses either. Each node of the URL is tried in turn; ConnectionError when none answers in `timeout`."""
    errors = []
    for node in split(url):
        params = pika.URLParameters(node)
        try:
            return await asyncio.wait_for(_handshake(params, name), timeout)
        except (OSError, asyncio.TimeoutError, ConnectionError) as exc:
            errors.append(f"{params.host}:{params.port}: {exc or type(exc).__name__}")
    raise ConnectionError(f"no broker answered a login: {'; '.join(errors)}")


async def _handshake(params: pika.URLParameters, name: str) -> bool:
    tls = params.ssl_options
    reader, writer = await asyncio.open_connection(
        params.host, params.port, ssl=tls.context if tls else None,
        server_hostname=(tls.server_hostname or params.host) if tls else None)
    try:
        writer.write(PROTOCOL)
        start = await _method(reader)
        if not isinstance(start, spec.Connection.Start):
            raise ConnectionError("the broker did not start AMQP 0-9-1")
        mechanism, response = params.credentials.response_for(start)
        if mechanism is None:
            raise ConnectionError("the broker does not take PLAIN logins")
        properties = {"product": "kubus", "connection_name": name, "capabilities": CAPABILITIES}
        writer.write(_frame(spec.Connection.StartOk(properties, mechanism, response)))
        tune = await _method(reader)  # or Close 403 ACCESS_REFUSED, or a hang-up: refused
        if not isinstance(tune, spec.Connection.Tune):
            return False
        writer.write(_frame(spec.Connection.TuneOk(tune.channel_max, tune.frame_max, 0))
                     + _frame(spec.Connection.Open(params.virtual_host)))
        if not isinstance(await _method(reader), spec.Connection.OpenOk):  # Close 530 NOT_ALLOWED: no vhost
            return False
        writer.write(_frame(spec.Connection.Close(200, "login checked", 0, 0)))
        await _method(reader)  # CloseOk: the broker logs no abrupt close
        return True
    finally:
        writer.close()
        with contextlib.suppress(OSError, ConnectionError):
            await writer.wait_closed()


async def _method(reader: asyncio.StreamReader):
    """The next frame's method (a heartbeat or body frame gives None); None when the broker hung up."""
    try:
        head = await reader.readexactly(HEAD.size)
        _kind, _channel, size = HEAD.unpack(head)
        if size > MAX_FRAME:
            raise ConnectionError("not an AMQP 0-9-1 frame")
        rest = await reader.readexactly(size + 1)
    except asyncio.IncompleteReadError:
        return None
    _used, found = frame.decode_frame(head + rest)
    return found.method if isinstance(found, frame.Method) else None


def _frame(method) -> bytes:
    return frame.Method(0, method).marshal()
