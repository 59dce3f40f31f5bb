"""Protocol buffers' wire format, as Kubernetes uses it (proto2, no zigzag: an int64 or int32 is a plain
varint, a negative one its 64-bit two's complement in ten bytes): varints, length-delimited fields, and
a walk over a message's fields."""
from __future__ import annotations

from typing import Iterator

from api.status import StatusError

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5
MASK64 = (1 << 64) - 1


def varint(n: int) -> bytes:
    """An unsigned varint; a negative number as its 64-bit two's complement (ten bytes)."""
    n &= MASK64
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number: int, value: bytes | int) -> bytes:
    """One field: an int as a varint, bytes (a string or a message) length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | BYTES) + varint(len(value)) + value


def read_varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise StatusError("BadRequest", "a truncated protobuf body")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return value & MASK64, i


def walk(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of each field in order: an int for varints and fixed
    widths, bytes for length-delimited fields."""
    i, end = 0, len(data)
    while i < end:
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, i = read_varint(data, i)
        elif wire == BYTES:
            size, i = read_varint(data, i)
            if i + size > end:
                raise StatusError("BadRequest", "a truncated protobuf body")
            value, i = data[i:i + size], i + size
        elif wire in (FIXED64, FIXED32):
            width = 8 if wire == FIXED64 else 4
            if i + width > end:
                raise StatusError("BadRequest", "a truncated protobuf body")
            value, i = int.from_bytes(data[i:i + width], "little"), i + width
        else:
            raise StatusError("BadRequest", f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def packed(data: bytes) -> list[int]:
    """The varints of a packed repeated field."""
    out, i = [], 0
    while i < len(data):
        value, i = read_varint(data, i)
        out.append(value)
    return out


def int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value
