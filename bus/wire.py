"""The AMQP 0-9-1 frames of the hot path, in one pass over the bytes: a publish (method, content header,
body) encoded as one string, and a delivery decoded where it lies in a read buffer.

pika marshals each frame of a publish through generic helpers and joins them apart, and decodes each
frame of a delivery into an object of its own; `bus.hotpath` puts these in their place. The bytes
are the same as pika's (tests/unit/test_wire.py checks them against pika's own codec).
"""
from __future__ import annotations

import struct

from pika import data, spec
from pika.exceptions import ShortStringTooLong

FRAME_HEAD = struct.Struct(">BHI")  # type, channel, payload size
TAG_AND_BITS = struct.Struct(">QB")  # a delivery tag and a bits octet: basic.deliver, basic.ack, basic.nack
CONTENT_HEAD = struct.Struct(">HHQH")  # class, weight, body size, property flags
U64 = struct.Struct(">Q")
U32 = METHOD_ID = struct.Struct(">I")
DELIVER_ID = spec.Basic.Deliver.INDEX
FRAME_END = spec.FRAME_END
PUBLISH_HEAD = struct.pack(">HHH", 60, 40, 0)  # basic.publish, ticket 0

_STR, _NAME, _TABLE, _OCTET, _U64 = range(5)  # _NAME: a short string that repeats
PROPERTIES = (  # BasicProperties in wire order: flag, attribute, kind
    (1 << 15, "content_type", _NAME), (1 << 14, "content_encoding", _STR), (1 << 13, "headers", _TABLE),
    (1 << 12, "delivery_mode", _OCTET), (1 << 11, "priority", _OCTET), (1 << 10, "correlation_id", _STR),
    (1 << 9, "reply_to", _STR), (1 << 8, "expiration", _STR), (1 << 7, "message_id", _STR),
    (1 << 6, "timestamp", _U64), (1 << 5, "type", _NAME), (1 << 4, "user_id", _NAME),
    (1 << 3, "app_id", _NAME), (1 << 2, "cluster_id", _STR),
)
PROPERTY_NAMES = tuple(name for _, name, _ in PROPERTIES)
_NONE = dict.fromkeys(PROPERTY_NAMES)


# ---- out ---------------------------------------------------------------------------------------
def short_string(value: str | bytes) -> bytes:
    raw = value.encode() if isinstance(value, str) else value
    if len(raw) > 255:
        raise ShortStringTooLong(raw)
    return bytes((len(raw),)) + raw


class _Names(dict):
    """Short strings that repeat from message to message (exchanges, routing keys, types, actors),
    encoded once; bounded, as routing keys name objects."""

    LIMIT = 4096

    def __missing__(self, value: str) -> bytes:
        if len(self) >= self.LIMIT:
            self.clear()
        raw = self[value] = short_string(value)
        return raw


class _Tables:
    """The last header table of plain values (str and int) encoded, and its bytes: most publishes of
    a process carry the same. Kept as one tuple, so a thread never reads one table's key with
    another's bytes."""

    def __init__(self):
        self.last: tuple[tuple | None, bytes] = (None, b"")

    def encode(self, table: dict) -> bytes:
        key = _plain(table)
        last = self.last
        if key is not None and key == last[0]:
            return last[1]
        pieces: list[bytes] = []
        data.encode_table(pieces, table)
        raw = b"".join(pieces)
        if key is not None:
            self.last = (key, raw)
        return raw


def _plain(table: dict) -> tuple | None:
    """The table as a key that tells 1 from True and "1" from 1; None if it holds other values."""
    key = []
    for name, value in table.items():
        kind = type(value)
        if kind is not str and kind is not int:
            return None
        key.append((name, kind is str, value))
    return tuple(key)


_names = _Names()
_tables = _Tables()


def encode_properties(props: spec.BasicProperties) -> tuple[int, bytes]:
    values, flags, parts = props.__dict__, 0, []
    for flag, name, kind in PROPERTIES:
        value = values[name]
        if value is None:
            continue
        flags |= flag
        if kind == _STR:
            parts.append(short_string(value))
        elif kind == _NAME:
            parts.append(_names[value])
        elif kind == _TABLE:
            parts.append(_tables.encode(value))
        elif kind == _OCTET:
            parts.append(bytes((value,)))
        else:
            parts.append(U64.pack(value))
    return flags, b"".join(parts)


def _frame(kind: int, channel: int, payload: bytes) -> bytes:
    return FRAME_HEAD.pack(kind, channel, len(payload)) + payload + b"\xce"


def encode_publish(channel: int, method: spec.Basic.Publish, props: spec.BasicProperties, body: bytes,
                   body_max: int) -> bytes:
    """basic.publish, its content header and its body frames: the bytes pika would write."""
    bits = (1 if method.mandatory else 0) | (2 if method.immediate else 0)
    head = PUBLISH_HEAD + _names[method.exchange] + _names[method.routing_key] + bytes((bits,))
    flags, properties = encode_properties(props)
    frames = [_frame(spec.FRAME_METHOD, channel, head),
              _frame(spec.FRAME_HEADER, channel, CONTENT_HEAD.pack(60, 0, len(body), flags) + properties)]
    frames.extend(_frame(spec.FRAME_BODY, channel, body[at:at + body_max]) for at in range(0, len(body), body_max))
    return b"".join(frames)


# ---- in ----------------------------------------------------------------------------------------
def _string(buf: bytes, at: int) -> tuple[str | bytes, int]:
    end = at + 1 + buf[at]
    raw = buf[at + 1:end]
    try:
        return raw.decode(), end
    except UnicodeDecodeError:
        return raw, end  # as pika does


class _Plans(dict):
    """For each property-flags word seen, the properties it carries, in wire order."""

    def __missing__(self, flags: int) -> tuple[tuple[str, int], ...]:
        plan = self[flags] = tuple((name, kind) for flag, name, kind in PROPERTIES if flags & flag)
        return plan


class _TableReads:
    """The last header table of plain values decoded, by its bytes: most deliveries of a process
    carry the same. Each delivery gets its own copy; kept as one tuple, as `_Tables`."""

    def __init__(self):
        self.last: tuple[bytes, dict] = (b"", {})

    def decode(self, buf: bytes, at: int) -> tuple[dict, int]:
        end = at + 4 + U32.unpack_from(buf, at)[0]
        raw = buf[at:end]
        last = self.last
        if raw == last[0]:
            return dict(last[1]), end
        table, _ = data.decode_table(raw, 0)
        if _plain(table) is not None:
            self.last = (raw, dict(table))
        return table, end


_plans = _Plans()
_table_reads = _TableReads()


def decode_properties(buf: bytes, at: int, flags: int) -> tuple[spec.BasicProperties, int]:
    values = dict(_NONE)
    for name, kind in _plans[flags]:
        if kind <= _NAME:
            values[name], at = _string(buf, at)
        elif kind == _TABLE:
            values[name], at = _table_reads.decode(buf, at)
        elif kind == _OCTET:
            values[name], at = buf[at], at + 1
        else:
            values[name], at = U64.unpack_from(buf, at)[0], at + 8
    props = spec.BasicProperties.__new__(spec.BasicProperties)
    props.__dict__ = values
    return props, at


class Malformed(ValueError):
    """Frames that are not what a delivery's must be: pika reads them instead, and says what is wrong."""


class Delivery:
    """One basic.deliver with its content header and body, decoded where they lie in a read buffer."""

    __slots__ = ("channel", "method", "props", "body", "end", "frames")

    @classmethod
    def read(cls, buf: bytes, at: int) -> "Delivery | None":
        """The delivery whose method frame starts at `at`; None while its frames are not all in."""
        method = frame_at(buf, at)
        if method is None:
            return None
        _kind, channel, _size, method_end = method
        tag, p = _string(buf, at + 11)
        delivery_tag, bits = TAG_AND_BITS.unpack_from(buf, p)
        exchange, p = _string(buf, p + 9)
        routing_key, p = _string(buf, p)
        _expect(p == method_end, "basic.deliver's fields do not fill its frame")
        header = frame_at(buf, method_end + 1)
        if header is None:
            return None
        kind, chan, _size, header_end = header
        _expect(kind == spec.FRAME_HEADER and chan == channel, "basic.deliver not followed by its content header")
        class_id, _weight, body_size, flags = CONTENT_HEAD.unpack_from(buf, method_end + 8)
        _expect(class_id == spec.Basic.INDEX, "a content header not of class basic")
        _expect(not flags & 1, "property flags that continue past one word")
        props, p = decode_properties(buf, method_end + 22, flags)
        _expect(p == header_end, "properties that do not fill their frame")
        pieces, got, p = [], 0, header_end + 1
        while got < body_size:
            body = frame_at(buf, p)
            if body is None:
                return None
            kind, chan, size, end = body
            _expect(kind == spec.FRAME_BODY and chan == channel, "a content header not followed by its body")
            pieces.append(buf[p + 7:end])
            got, p = got + size, end + 1
        _expect(got == body_size, "body frames longer than the content header said")
        self = cls()
        self.channel, self.end, self.frames = channel, p, 2 + len(pieces)
        self.method = spec.Basic.Deliver(tag, delivery_tag, bool(bits & 1), exchange, routing_key)
        self.props = props
        self.body = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        return self


def _expect(condition: bool, otherwise: str) -> None:
    if not condition:
        raise Malformed(otherwise)


def frame_at(buf: bytes, at: int) -> tuple[int, int, int, int] | None:
    """(type, channel, size, index of the frame-end octet) of the frame at `at`; None if not all in."""
    if len(buf) - at < 8:
        return None
    kind, channel, size = FRAME_HEAD.unpack_from(buf, at)
    end = at + 7 + size
    if end >= len(buf):
        return None
    _expect(buf[end] == FRAME_END, "a frame without its frame-end octet")
    return kind, channel, size, end
