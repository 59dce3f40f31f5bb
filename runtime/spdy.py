"""SPDY/3.1 framing as Kubernetes' streams use it (moby/spdystream: no flow control is enforced, so none
is kept here either): streams opened with SYN_STREAM and their headers (`streamtype`, `port`,
`requestid`), answered by SYN_REPLY, carrying DATA until a FIN half-closes one direction.

Header blocks are zlib-compressed with SPDY/3's dictionary (a protocol constant: the `spdy-py`
package's `zdict`), one compression context per direction for the whole connection. A Connection
runs over any byte transport: a TCP socket after an HTTP `Upgrade: SPDY/3.1`, or WebSocket binary
messages (kubectl's port-forward from 1.31, `SPDY/3.1+portforward.k8s.io`).
"""
from __future__ import annotations

import asyncio
import struct
import zlib
from dataclasses import dataclass, field
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from spdy.dictionary import zdict

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FIN, UNIDIRECTIONAL = 0x01, 0x02
MAX_FRAME = 16 * 1024 * 1024 - 1  # a frame's 24-bit length
CANCEL = 5  # RST_STREAM status

Read = Callable[[], Awaitable[bytes]]  # b"" at the end
Write = Callable[[bytes], Awaitable[None]]


class ProtocolError(Exception):
    pass


def encode_headers(compressor, headers: dict[str, str]) -> bytes:
    block = struct.pack(">I", len(headers))
    for name, value in headers.items():
        n, v = name.lower().encode(), value.encode()
        block += struct.pack(">I", len(n)) + n + struct.pack(">I", len(v)) + v
    return compressor.compress(block) + compressor.flush(zlib.Z_SYNC_FLUSH)


def decode_headers(decompressor, data: bytes) -> dict[str, str]:
    block = decompressor.decompress(data)
    (count,), at, headers = struct.unpack_from(">I", block), 4, {}
    for _ in range(count):
        (n,) = struct.unpack_from(">I", block, at)
        name = block[at + 4:at + 4 + n].decode()
        at += 4 + n
        (v,) = struct.unpack_from(">I", block, at)
        headers[name] = block[at + 4:at + 4 + v].decode()
        at += 4 + v
    return headers


def control(kind: int, flags: int, payload: bytes) -> bytes:
    return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload


def data_frame(stream_id: int, data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">II", stream_id & 0x7FFFFFFF, (flags << 24) | len(data)) + data


@dataclass
class Stream:
    """One stream: its headers, what arrived (None once the other side half-closed it)."""

    id: int
    headers: dict[str, str]
    connection: "Connection" = field(repr=False)
    inbox: asyncio.Queue = field(default_factory=asyncio.Queue, repr=False)
    closed: bool = False  # our side sent FIN

    async def write(self, data: bytes) -> None:
        await self.connection.send(data_frame(self.id, data))

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self.connection.send(data_frame(self.id, b"", FIN))

    async def read(self) -> bytes | None:
        """The next piece of data; None when the other side has closed the stream."""
        return await self.inbox.get()


class Connection:
    """A SPDY session: `open` streams as the client (odd ids), or get the peer's in `on_stream` as
    the server (which answers each with SYN_REPLY). `run()` reads until the transport ends."""

    def __init__(self, read: Read, write: Write, client: bool,
                 on_stream: Callable[[Stream], None] | None = None, buffered: bytes = b""):
        self._read, self._write, self.client, self.on_stream = read, write, client, on_stream
        self.compressor = zlib.compressobj(zdict=zdict)
        self.decompressor = zlib.decompressobj(zdict=zdict)
        self.streams: dict[int, Stream] = {}
        self.next_id = 1 if client else 2
        self.buffer = buffered
        self._lock = asyncio.Lock()
        self.done = asyncio.Event()

    async def send(self, frame: bytes) -> None:
        async with self._lock:
            await self._write(frame)

    async def open(self, headers: dict[str, str]) -> Stream:
        async with self._lock:  # ids in order, and the header compressor's context too
            stream = Stream(self.next_id, headers, self)
            self.next_id += 2
            self.streams[stream.id] = stream
            block = encode_headers(self.compressor, headers)
            await self._write(control(SYN_STREAM, 0, struct.pack(">IIH", stream.id, 0, 0) + block))
        return stream

    async def run(self) -> None:
        try:
            while True:
                frame = await self._frame()
                if frame is None:
                    return
                await self._handle(*frame)
        finally:
            self.done.set()
            for stream in self.streams.values():
                stream.inbox.put_nowait(None)

    async def _frame(self) -> tuple[int, int, bytes] | None:
        """(type or -stream id of a data frame, flags, payload); None at the transport's end."""
        while len(self.buffer) < 8 or len(self.buffer) < 8 + (int.from_bytes(self.buffer[5:8], "big")):
            more = await self._read()
            if not more:
                return None
            self.buffer += more
        first, second = struct.unpack_from(">II", self.buffer)
        length, flags = second & 0xFFFFFF, second >> 24
        payload, self.buffer = self.buffer[8:8 + length], self.buffer[8 + length:]
        if first & 0x80000000:
            return first & 0xFFFF, flags, payload
        return -(first & 0x7FFFFFFF), flags, payload

    async def _handle(self, kind: int, flags: int, payload: bytes) -> None:
        if kind <= 0:
            stream = self.streams.get(-kind)
            if stream is not None:
                if payload:
                    stream.inbox.put_nowait(payload)
                if flags & FIN:
                    stream.inbox.put_nowait(None)
        elif kind == SYN_STREAM:
            stream_id = struct.unpack_from(">I", payload)[0] & 0x7FFFFFFF
            stream = Stream(stream_id, decode_headers(self.decompressor, payload[10:]), self)
            self.streams[stream_id] = stream
            async with self._lock:
                block = encode_headers(self.compressor, {})
                await self._write(control(SYN_REPLY, 0, struct.pack(">I", stream_id) + block))
            if flags & FIN:
                stream.inbox.put_nowait(None)
            if self.on_stream is not None:
                self.on_stream(stream)
        elif kind in (SYN_REPLY, HEADERS):
            decode_headers(self.decompressor, payload[4:])  # keeps the decompression context in step
        elif kind == RST_STREAM:
            stream = self.streams.get(struct.unpack_from(">I", payload)[0] & 0x7FFFFFFF)
            if stream is not None:
                stream.inbox.put_nowait(None)
        elif kind == PING:
            await self.send(control(PING, 0, payload))
        elif kind == GOAWAY:
            raise ProtocolError("the peer went away")

    async def reset(self, stream: Stream) -> None:
        await self.send(control(RST_STREAM, 0, struct.pack(">II", stream.id, CANCEL)))


async def upgrade(url: str, protocols: tuple[str, ...]) -> tuple[Connection, str]:
    """A client Connection to an `http://` stream URL (the runtime's, on the node's loopback) after
    `Upgrade: SPDY/3.1`; and the stream protocol the server chose."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    request = (f"POST {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
               + "".join(f"X-Stream-Protocol-Version: {p}\r\n" for p in protocols) + "Content-Length: 0\r\n\r\n")
    writer.write(request.encode())
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if " 101 " not in lines[0] + " ":
        body = await reader.read(4096)
        writer.close()
        raise ProtocolError(f"the runtime refused the upgrade: {lines[0]} {body.decode(errors='replace')}".strip())
    chosen = next((line.split(":", 1)[1].strip() for line in lines
                   if line.lower().startswith("x-stream-protocol-version:")), "")

    async def write(data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    async def read() -> bytes:
        return await reader.read(65536)

    connection = Connection(read, write, client=True)
    connection.close_transport = writer.close  # type: ignore[attr-defined]
    return connection, chosen
