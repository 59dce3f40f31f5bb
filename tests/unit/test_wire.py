"""bus.wire writes the bytes pika writes and reads what pika reads, for any properties and body size."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st
from pika import frame, spec
from pika.channel import ContentFrameAssembler
from pika.exceptions import ShortStringTooLong

from bus import wire

BODY_MAX = 64  # small frames, so bodies of a few hundred bytes span several
short = st.text(max_size=40)
table_values = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | short,
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(short, inner, max_size=3),
                            max_leaves=6)
properties = st.builds(
    spec.BasicProperties, content_type=st.none() | short, content_encoding=st.none() | short,
    headers=st.none() | st.dictionaries(short, table_values, max_size=4), delivery_mode=st.none() | st.sampled_from([1, 2]),
    priority=st.none() | st.integers(0, 9), correlation_id=st.none() | short, reply_to=st.none() | short,
    expiration=st.none() | st.integers(1, 10**9).map(str), message_id=st.none() | short,
    timestamp=st.none() | st.integers(0, 2**40), type=st.none() | short, user_id=st.none() | short,
    app_id=st.none() | short, cluster_id=st.none() | short)
bodies = st.binary(max_size=BODY_MAX * 4 + 1)


def pikas_frames(channel: int, method, props: spec.BasicProperties, body: bytes) -> bytes:
    """A publish or a delivery (method, content header, body frames) as pika marshals it."""
    frames = [frame.Method(channel, method).marshal(), frame.Header(channel, len(body), props).marshal()]
    frames += [frame.Body(channel, body[at:at + BODY_MAX]).marshal() for at in range(0, len(body), BODY_MAX)]
    return b"".join(frames)


def pika_reads(raw: bytes):
    """The (method, properties, body) pika's own decoder and assembler make of one delivery."""
    assembler, at = ContentFrameAssembler(), 0
    while True:
        taken, value = frame.decode_frame(raw[at:])
        at += taken
        done = assembler.process(value)
        if done:
            return done[0].method, done[1].properties, done[2]


@settings(max_examples=300, deadline=None)
@given(props=properties, body=bodies, exchange=short, key=short, mandatory=st.booleans(), channel=st.integers(1, 2047))
def test_a_publish_is_the_bytes_pika_writes(props, body, exchange, key, mandatory, channel):
    method = spec.Basic.Publish(exchange=exchange, routing_key=key, mandatory=mandatory)
    assert wire.encode_publish(channel, method, props, body, BODY_MAX) == pikas_frames(channel, method, props, body)


@settings(max_examples=300, deadline=None)
@given(props=properties, body=bodies, tag=st.integers(1, 2**64 - 1), redelivered=st.booleans(), key=short)
def test_a_delivery_reads_as_pika_reads_it(props, body, tag, redelivered, key):
    deliver = spec.Basic.Deliver("ctag1.x", tag, redelivered, "kubus.events", key)
    raw = pikas_frames(3, deliver, props, body)
    got = wire.Delivery.read(raw, 0)
    method, their_props, their_body = pika_reads(raw)
    assert (vars(got.method), vars(got.props), got.body) == (vars(method), vars(their_props), their_body)
    assert (got.channel, got.end, got.frames) == (3, len(raw), 2 + -(-len(body) // BODY_MAX))


def test_a_delivery_not_all_in_is_read_once_it_is():
    raw = pikas_frames(1, spec.Basic.Deliver("c", 7, False, "", "k"), spec.BasicProperties(type="reply"), b"x" * 200)
    assert [cut for cut in range(len(raw)) if wire.Delivery.read(raw[:cut], 0) is not None] == []
    assert wire.Delivery.read(raw + b"\x01\x00", 0).end == len(raw)


@pytest.mark.parametrize("spoil,why", [
    (lambda raw: raw.replace(b"\xce", b"\xcf", 1), "frame-end"),
    (lambda raw: raw[:_header_at(raw) + 1] + b"\x00\x09" + raw[_header_at(raw) + 3:], "content header"),
    (lambda raw: raw[:_header_at(raw)] + b"\x03" + raw[_header_at(raw) + 1:], "content header"),
    (lambda raw: raw[:_header_at(raw) + 7] + b"\x00\x3d" + raw[_header_at(raw) + 9:], "class basic"),
])
def test_frames_that_are_not_a_deliverys_are_malformed(spoil, why):
    raw = pikas_frames(1, spec.Basic.Deliver("c", 7, False, "", "k"), spec.BasicProperties(type="reply"), b"body")
    with pytest.raises(wire.Malformed, match=why):
        wire.Delivery.read(spoil(raw), 0)


def _header_at(raw: bytes) -> int:
    return 8 + wire.FRAME_HEAD.unpack_from(raw, 0)[2]


def test_a_short_string_too_long_fails_as_in_pika():
    method = spec.Basic.Publish(exchange="", routing_key="k" * 256)
    with pytest.raises(ShortStringTooLong):
        wire.encode_publish(1, method, spec.BasicProperties(), b"", BODY_MAX)


def test_repeated_names_stay_bounded():
    names = wire._Names()
    for i in range(names.LIMIT * 2 + 5):
        assert names[f"key-{i}"] == wire.short_string(f"key-{i}")
    assert len(names) <= names.LIMIT


@pytest.mark.parametrize("first,then", [({"x": 1}, {"x": True}), ({"x": "1"}, {"x": 1}), ({"x": 1}, {"x": Decimal(1)}),
                                        ({"x": [1]}, {"x": [1]})])
def test_a_table_like_the_last_one_is_still_the_bytes_pika_writes(first, then):
    method = spec.Basic.Publish(exchange="", routing_key="k")
    for table in (first, then):
        props = spec.BasicProperties(headers=table)
        assert wire.encode_publish(1, method, props, b"", BODY_MAX) == pikas_frames(1, method, props, b"")


def test_a_nested_header_changed_in_place_is_encoded_as_it_is_now():
    method, headers = spec.Basic.Publish(exchange="", routing_key="k"), {"CC": ["a"]}
    wire.encode_publish(1, method, spec.BasicProperties(headers=headers), b"", BODY_MAX)
    headers["CC"].append("b")
    props = spec.BasicProperties(headers=headers)
    assert wire.encode_publish(1, method, props, b"", BODY_MAX) == pikas_frames(1, method, props, b"")
