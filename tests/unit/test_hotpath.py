"""The patched read loop hands a channel the same deliveries and confirms, in the same order, as pika's
own loop — however the bytes are cut into reads. Both loops run on a stand-in connection made of
pika's own frame handling and a real pika Channel; only the socket is missing."""
from __future__ import annotations

import random

import pytest
from pika import channel, connection, frame, spec
from pika.callback import CallbackManager

from bus import frames, hotpath

PIKAS_READ = hotpath.PIKAS_READ


class StandIn:
    """What pika's Connection keeps and does for reading frames, without a socket."""

    _process_frame = connection.Connection._process_frame
    _process_callbacks = connection.Connection._process_callbacks
    _is_method_frame = connection.Connection._is_method_frame
    _deliver_frame_to_channel = connection.Connection._deliver_frame_to_channel
    _has_pending_callbacks = frames._has_pending_callbacks
    _read_frame = connection.Connection._read_frame
    _trim_frame_buffer = connection.Connection._trim_frame_buffer

    def __init__(self):
        self.callbacks = CallbackManager()
        self._frame_buffer = b""
        self._heartbeat_checker = None
        self.bytes_received = self.frames_received = 0
        self.seen: list = []
        chan = channel.Channel(self, 1, lambda _ch: None)
        chan._consumers["ctag"] = lambda _ch, method, props, body: self.seen.append(
            ("deliver", method.delivery_tag, method.routing_key, props.message_id, body))
        self.callbacks.add(1, spec.Basic.Ack, lambda value: self.seen.append(("ack", value.method.delivery_tag,
                                                                               value.method.multiple)), one_shot=False)
        self.callbacks.add(1, spec.Basic.Nack, lambda value: self.seen.append(("nack", value.method.delivery_tag)),
                           one_shot=False)
        self.callbacks.add(1, spec.Basic.Cancel, lambda value: self.seen.append(("cancel", value.method.consumer_tag)))
        self._channels = {1: chan}


def stream() -> bytes:
    parts = []
    for tag in range(1, 6):
        body = bytes([tag]) * (tag * 90)  # up to five body frames of 100 bytes
        parts += [frame.Method(1, spec.Basic.Deliver("ctag", tag, tag == 3, "ex", f"key.{tag}")).marshal(),
                  frame.Header(1, len(body), spec.BasicProperties(message_id=f"m{tag}", headers={"n": tag})).marshal()]
        parts += [frame.Body(1, body[at:at + 100]).marshal() for at in range(0, len(body), 100)]
        parts.append(frame.Method(1, spec.Basic.Ack(tag, tag % 2 == 0)).marshal())
    parts.insert(4, frame.Heartbeat().marshal())
    parts.insert(7, frame.Method(1, spec.Basic.Nack(9, False, True)).marshal())
    parts.append(frame.Method(1, spec.Basic.Cancel("ctag")).marshal())
    return b"".join(parts)


def read_in_pieces(read, cuts: list[int]) -> StandIn:
    conn, raw, last = StandIn(), stream(), 0
    for cut in cuts + [len(raw)]:
        if cut > last:
            read(conn, raw[last:cut])
            last = cut
    return conn


@pytest.fixture(scope="module")
def pikas():
    conn = read_in_pieces(PIKAS_READ, [])
    assert len(conn.seen) == 12 and conn.frames_received == len(frames_in(stream()))
    return conn


def frames_in(raw: bytes) -> list:
    found, at = [], 0
    while at < len(raw):
        taken, value = frame.decode_frame(raw[at:])
        found.append(value)
        at += taken
    return found


def test_whole_stream_reads_as_pika_reads_it(pikas):
    conn = read_in_pieces(hotpath.on_data_available, [])
    assert (conn.seen, conn.bytes_received, conn.frames_received, conn._frame_buffer) == \
           (pikas.seen, pikas.bytes_received, pikas.frames_received, b"")


def test_every_cut_into_two_reads_reads_as_pika_reads_it(pikas):
    for cut in range(1, len(stream())):
        conn = read_in_pieces(hotpath.on_data_available, [cut])
        assert (conn.seen, conn.bytes_received) == (pikas.seen, pikas.bytes_received), f"cut at {cut}"


def test_random_small_reads_read_as_pika_reads_them(pikas):
    rng = random.Random(7)
    for _ in range(50):
        cuts = sorted(rng.sample(range(1, len(stream())), 40))
        assert read_in_pieces(hotpath.on_data_available, cuts).seen == pikas.seen


def test_a_delivery_begun_by_pika_is_finished_by_pika():
    """A delivery whose method frame pika read (its frames did not look right to the fast path) stays
    with pika's assembler for its header and body."""
    conn = StandIn()
    hotpath._frame_by_pika(conn, frame.Method(1, spec.Basic.Deliver("ctag", 1, False, "", "k")).marshal(), 0)
    rest = frame.Header(1, 2, spec.BasicProperties()).marshal() + frame.Body(1, b"ok").marshal()
    hotpath.on_data_available(conn, rest)
    assert conn.seen == [("deliver", 1, "k", None, b"ok")]


def test_a_confirm_with_a_one_shot_listener_goes_through_pikas_manager():
    conn = StandIn()
    conn.callbacks.add(1, spec.Basic.Ack, lambda value: conn.seen.append("one-shot"))
    hotpath.on_data_available(conn, frame.Method(1, spec.Basic.Ack(4, False)).marshal())
    hotpath.on_data_available(conn, frame.Method(1, spec.Basic.Ack(5, False)).marshal())
    assert conn.seen == [("ack", 4, False), "one-shot", ("ack", 5, False)]


def test_a_connection_that_resets_itself_keeps_none_of_the_old_bytes():
    conn = StandIn()
    conn._channels[1]._consumers["ctag"] = lambda *_a: setattr(conn, "_frame_buffer", b"")  # as a close does
    hotpath.on_data_available(conn, stream())
    assert conn._frame_buffer == b""


def test_a_large_delivery_is_read_by_pika_frame_by_frame_as_it_comes():
    """Its bytes count as they arrive (the heartbeat checker and the silence watch read them), and no
    read re-parses what came before."""
    body = bytes(range(256)) * 2048  # 512 KiB: four body frames of 128 KiB
    raw = b"".join([frame.Method(1, spec.Basic.Deliver("ctag", 1, False, "", "big")).marshal(),
                    frame.Header(1, len(body), spec.BasicProperties(message_id="m")).marshal()] +
                   [frame.Body(1, body[at:at + (1 << 17)]).marshal() for at in range(0, len(body), 1 << 17)])
    conn, half = StandIn(), len(raw) // 2
    hotpath.on_data_available(conn, raw[:half])
    counted = conn.bytes_received
    hotpath.on_data_available(conn, raw[half:])
    assert counted > hotpath.PIKA_FROM and conn.seen == [("deliver", 1, "big", "m", body)]
    assert (conn.bytes_received, conn._frame_buffer) == (len(raw), b"")
