"""The wire format's helpers against encodings worked out by hand from the protobuf specification."""
from __future__ import annotations

import pytest

from api.protobuf import wire
from api.status import StatusError


@pytest.mark.parametrize("number, encoded", [
    pytest.param(0, b"\x00", id="zero"),
    pytest.param(1, b"\x01", id="one"),
    pytest.param(127, b"\x7f", id="one-byte-max"),
    pytest.param(128, b"\x80\x01", id="two-bytes"),
    pytest.param(300, b"\xac\x02", id="the-spec-example"),
    pytest.param(-1, b"\xff" * 9 + b"\x01", id="minus-one-ten-bytes"),
    pytest.param(-62135596800, b"\x80\x92\xb8\xc3\x98\xfe\xff\xff\xff\x01", id="go-zero-time"),
])
def test_varints(number, encoded):
    assert wire.varint(number) == encoded
    value, end = wire.read_varint(encoded, 0)
    assert end == len(encoded) and wire.int64(value) == number


@pytest.mark.parametrize("number, value, encoded", [
    pytest.param(1, 150, b"\x08\x96\x01", id="varint-field"),
    pytest.param(2, b"testing", b"\x12\x07testing", id="string-field"),
    pytest.param(16, b"", b"\x82\x01\x00", id="two-byte-key"),
])
def test_fields(number, value, encoded):
    assert wire.field(number, value) == encoded
    assert list(wire.walk(encoded)) == [(number, 0 if isinstance(value, int) else 2, value)]


def test_a_walk_reads_fixed_widths_and_packed_varints():
    data = b"\x09" + (7).to_bytes(8, "little") + b"\x15" + (9).to_bytes(4, "little") + b"\x1a\x03\x01\x96\x01"
    assert list(wire.walk(data)) == [(1, 1, 7), (2, 5, 9), (3, 2, b"\x01\x96\x01")]
    assert wire.packed(b"\x01\x96\x01") == [1, 150]


@pytest.mark.parametrize("value, as32, as64", [
    pytest.param(5, 5, 5, id="positive"),
    pytest.param((1 << 64) - 1, -1, -1, id="minus-one"),
    pytest.param((1 << 64) - (1 << 31), -(1 << 31), -(1 << 31), id="int32-min"),
])
def test_signed_reading(value, as32, as64):
    assert wire.int32(value) == as32 and wire.int64(value) == as64


@pytest.mark.parametrize("data", [
    pytest.param(b"\x0a\x05abc", id="length-past-the-end"),
    pytest.param(b"\x08", id="varint-cut"),
    pytest.param(b"\x08" + b"\xff" * 11, id="varint-too-long"),
    pytest.param(b"\x0b", id="group-wire-type"),
    pytest.param(b"\x09\x01\x02", id="fixed64-cut"),
])
def test_what_cannot_be_walked_is_a_bad_request(data):
    with pytest.raises(StatusError) as refused:
        list(wire.walk(data))
    assert refused.value.reason == "BadRequest"
