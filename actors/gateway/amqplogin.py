"""Who a connection through the broker relay logs in as: the user of its AMQP 0-9-1 `connection.start-ok`
(the client's first frame after the protocol header), PLAIN only. The relay reads this one frame and
nothing after it, to let only ServiceAccount users of this cluster through: every relayed connection
reaches the broker from the host's loopback, where RabbitMQ trusts its loopback-only users (`guest`,
an administrator by default), so without this a pod knowing `guest:guest` would own the broker."""
from __future__ import annotations

import asyncio
import struct

from config.identities import role_of

PROTOCOL_HEADER = b"AMQP\x00\x00\x09\x01"
METHOD_FRAME, FRAME_END = 1, 0xCE
START_OK = (10, 11)  # connection.start-ok
MAX_FRAME = 64 * 1024  # a start-ok is a few hundred bytes (its client properties)


class Refused(Exception):
    """Not a login the relay lets through; the message says why (for the log)."""


async def read_frame(reader: asyncio.StreamReader) -> bytes:
    """One whole frame (header, payload, end octet), or Refused past MAX_FRAME."""
    header = await reader.readexactly(7)
    size = struct.unpack(">I", header[3:7])[0]
    if size > MAX_FRAME:
        raise Refused(f"a first frame of {size} bytes")
    return header + await reader.readexactly(size + 1)


def login_user(frame: bytes) -> str:
    """The PLAIN user a start-ok frame logs in as; Refused when it is not one."""
    try:
        return _login_user(frame)
    except (struct.error, IndexError) as exc:
        raise Refused(f"a truncated start-ok ({exc})") from exc


def _login_user(frame: bytes) -> str:
    kind, channel, size = struct.unpack(">BHI", frame[:7])
    payload = frame[7:7 + size]
    if kind != METHOD_FRAME or channel != 0 or frame[-1] != FRAME_END or struct.unpack(">HH", payload[:4]) != START_OK:
        raise Refused("the first frame is not connection.start-ok")
    at = 4
    at += 4 + struct.unpack(">I", payload[at:at + 4])[0]  # client-properties (a table: its length, then it)
    mechanism, at = _short(payload, at)
    if mechanism != b"PLAIN":
        raise Refused(f"mechanism {mechanism.decode(errors='replace')!r} (the relay takes PLAIN)")
    response_size = struct.unpack(">I", payload[at:at + 4])[0]
    response = payload[at + 4:at + 4 + response_size]
    parts = response.split(b"\x00")
    if len(parts) != 3:
        raise Refused("a malformed PLAIN response")
    return parts[1].decode("utf-8", errors="replace")


def ours(cluster: str, user: str) -> bool:
    """A ServiceAccount's broker user of this cluster: the only identity a pod is given."""
    found = role_of(cluster, user)
    return found is not None and found[0] == "sa"


def _short(payload: bytes, at: int) -> tuple[bytes, int]:
    size = payload[at]
    return payload[at + 1:at + 1 + size], at + 1 + size

