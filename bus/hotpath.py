"""pika's connection reading deliveries and publisher confirms, and writing publishes, through
`bus.wire` instead of its general frame machinery.

pika reads every frame alone: it slices the frame out of its read buffer, then re-slices the buffer
(copying all that is left, once per frame), makes the frame an object, hands a delivery's three
frames through a content assembler, and sends a confirm through a callback manager that logs and
copies its lists on every call. Reading, writing and confirming were a quarter or more of every
kubus process's CPU. Here the read loop keeps an offset into the buffer; a delivery whose frames are
all in is decoded at once and handed to its channel as pika would hand it; a confirm goes straight
to the channel's confirm listeners when that is all pika's manager would do with it; a publish
leaves as one string. Every other frame — and a delivery or confirm that does not look as it
should — goes through pika as before, so its checks, errors and callbacks stay its own.
"""
from __future__ import annotations

import struct

from pika import channel, connection, frame, spec

from bus import frames, wire

ACK_ID, NACK_ID = spec.Basic.Ack.INDEX, spec.Basic.Nack.INDEX
PIKAS_READ = connection.Connection._on_data_available
PIKAS_SEND = connection.Connection._send_message
PIKA_FROM = 1 << 17  # a delivery still incomplete with this much of it in is read by pika, frame by frame


# ---- in ----------------------------------------------------------------------------------------
def on_data_available(self: connection.Connection, data_in: bytes) -> None:
    """pika's read loop, keeping an offset into the buffer instead of re-slicing it after every frame."""
    buf = self._frame_buffer + data_in if self._frame_buffer else data_in
    self._frame_buffer = buf
    at = 0
    try:
        while at < len(buf):
            taken = _next(self, buf, at)
            if not taken:
                break
            at += taken
            if self._frame_buffer is not buf:
                return  # the connection reset itself (it closed): what is left is no longer its
    finally:
        if self._frame_buffer is buf and at:
            self._frame_buffer = buf[at:]


def _next(self: connection.Connection, buf: bytes, at: int) -> int:
    """Handle what starts at `at`: the bytes used, 0 if more must come first."""
    if len(buf) - at >= 11 and buf[at] == spec.FRAME_METHOD:
        fast = _FAST.get(wire.METHOD_ID.unpack_from(buf, at + 7)[0])
        if fast is not None:
            taken = fast(self, buf, at)
            if taken is None:
                return 0
            if taken:
                return taken
    return _frame_by_pika(self, buf, at)


def _delivery(self: connection.Connection, buf: bytes, at: int) -> int | None:
    """The delivery at `at` handed to its channel: the bytes used; None if more must come first; 0 if
    pika is to read it (not well formed, or its channel's assembler is mid-message)."""
    chan = self._channels.get(wire.FRAME_HEAD.unpack_from(buf, at)[1])
    if chan is None or chan._content_assembler._method_frame is not None:
        return 0
    try:
        delivery = wire.Delivery.read(buf, at)
    except (wire.Malformed, struct.error, IndexError):
        return 0
    if delivery is None:  # not all in: wait for the rest, unless it is large (pika counts it as it comes)
        return None if len(buf) - at < PIKA_FROM else 0
    size = delivery.end - at
    self.bytes_received += size
    self.frames_received += delivery.frames
    method = frame.Method(delivery.channel, delivery.method)
    if self._has_pending_callbacks(method):
        self.callbacks.process(delivery.channel, delivery.method, self, method)
    else:
        chan._on_deliver(method, frame.Header(delivery.channel, len(delivery.body), delivery.props), delivery.body)
    return size


def _confirm(self: connection.Connection, buf: bytes, at: int) -> int | None:
    """The publisher confirm (basic.ack or basic.nack) at `at` handed to its channel's confirm listeners."""
    try:
        whole = wire.frame_at(buf, at)
    except wire.Malformed:
        return 0
    if whole is None:
        return None
    _kind, number, size, _end = whole
    if size != 13:
        return 0
    tag, bits = wire.TAG_AND_BITS.unpack_from(buf, at + 11)
    is_ack = wire.METHOD_ID.unpack_from(buf, at + 7)[0] == ACK_ID
    method = spec.Basic.Ack(tag, bool(bits & 1)) if is_ack else spec.Basic.Nack(tag, bool(bits & 1), bool(bits & 2))
    listeners = _plain_listeners(self, number, method.NAME)
    if listeners is None:
        return 0
    self.bytes_received += size + 8
    self.frames_received += 1
    value = frame.Method(number, method)
    for listener in listeners:
        listener(value)
    return size + 8


def _plain_listeners(self: connection.Connection, number: int, name: str) -> list | None:
    """The callbacks pika's callback manager would call for this method, when calling them is all it
    would do (none one-shot, none limited to a caller or to arguments); else None."""
    entries = frames.waiting(self.callbacks, number, name)
    if not entries or any(e["one_shot"] or e["only"] is not None or e["arguments"] is not None for e in entries):
        return None
    return [e["callback"] for e in entries]


def _frame_by_pika(self: connection.Connection, buf: bytes, at: int) -> int:
    """One frame decoded and processed by pika, sliced out alone: the bytes used, 0 if not all in yet."""
    if len(buf) - at >= 7 and buf[at:at + 4] != b"AMQP":
        stop = at + 8 + wire.FRAME_HEAD.unpack_from(buf, at)[2]
    else:
        stop = at + 8  # a protocol header is 8 bytes
    taken, value = frame.decode_frame(buf[at:stop])
    if not value:
        return 0
    self.bytes_received += taken
    self._process_frame(value)
    return taken


_FAST = {wire.DELIVER_ID: _delivery, ACK_ID: _confirm, NACK_ID: _confirm}


# ---- out ---------------------------------------------------------------------------------------
def send_message(self: connection.Connection, channel_number: int, method, content) -> None:
    """pika's `_send_message`: a basic.publish leaves as one string; any other content as pika makes it."""
    if not isinstance(method, spec.Basic.Publish):
        return PIKAS_SEND(self, channel_number, method, content)
    props, body = content
    raw = wire.encode_publish(channel_number, method, props, body, self._body_max_length)
    self.frames_sent += 2 + -(-len(body) // self._body_max_length)
    self.bytes_sent += len(raw)
    self._adapter_emit_data(raw)


def install() -> None:
    """Idempotent; a pika whose objects lack what this reads and writes keeps its own."""
    if "_method_frame" in vars(channel.ContentFrameAssembler()) and \
            set(wire.PROPERTY_NAMES) == set(vars(spec.BasicProperties())):
        connection.Connection._on_data_available = on_data_available
        connection.Connection._send_message = send_message
