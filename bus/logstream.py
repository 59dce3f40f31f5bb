"""A RabbitMQ stream used as a log (AMQP 0-9-1 through pika, scale-out.md §1.4) — the replicated
store's `{c}.store.wal`: declared as a stream, appended to through the default exchange, read from
an offset with manual acks — never a nack, which closes a stream consumer's connection. Each
delivery's `x-stream-offset` header is its place in the log; entries are bytes, their encoding the
owner's."""
from __future__ import annotations

from typing import Any, Callable

import pika
import structlog

from bus.connection import Bus

PREFETCH = 256
REOPEN_S = 0.2
log = structlog.get_logger("bus")

Entry = Callable[[int, bytes], None]  # (offset, body)


class LogStream:
    def __init__(self, bus: Bus, queue: str, max_bytes: int, segment_bytes: int, on_entry: Entry,
                 resume: Callable[[], int | str]):
        self.bus, self.queue, self.on_entry, self.resume = bus, queue, on_entry, resume
        self.arguments = {"x-queue-type": "stream", "x-max-length-bytes": max_bytes,
                          "x-stream-max-segment-size-bytes": segment_bytes, "x-initial-cluster-size": 3}
        self.channel: Any = None
        self.offset: int | None = None  # where reading starts again: the next offset to deliver

    def follow(self) -> None:
        """(Re)open the channel and read on from where the owner stands (`resume()`: "first", or an
        offset); again whenever the broker closes the channel or cancels the consumer (a stream's
        leader moved) while the connection lives."""
        self.channel = None

        def opened(channel) -> None:
            self.channel = channel
            channel.add_on_close_callback(lambda _ch, reason: self._lost(channel, reason))
            channel.add_on_cancel_callback(lambda _frame: self._lost(channel, "consumer cancelled"))
            channel.basic_qos(prefetch_count=PREFETCH, callback=lambda _f: channel.queue_declare(
                self.queue, durable=True, arguments=self.arguments, callback=lambda _f: self._consume()))
        self.bus.side_channel(opened)

    def _lost(self, channel, reason) -> None:
        if channel is not self.channel:
            return
        self.channel = None
        if self.bus.channel is not None:  # the connection lives: follow again; else its reconnect will
            log.info("bus.stream_channel_lost", queue=self.queue, reason=str(reason)[:200])
            if channel.is_open:
                channel.close()
            self.bus.call_later(REOPEN_S, lambda: self.channel is None and self.bus.channel is not None
                                and self.follow())

    def _consume(self) -> None:
        self.channel.basic_consume(self.queue, self._delivered, auto_ack=False,
                                   arguments={"x-stream-offset": self.resume()})

    def _delivered(self, channel, method, props, body: bytes) -> None:
        if channel is not self.channel:
            return  # a delivery of a channel being closed: the new one reads it again
        offset = int((props.headers or {}).get("x-stream-offset", -1))
        channel.basic_ack(method.delivery_tag)
        self.on_entry(offset, body)

    def append(self, body: bytes) -> bool:
        """Publish an entry; False when there is no channel (the caller waits for its read-back anyway)."""
        if self.channel is None or not self.channel.is_open:
            return False
        self.channel.basic_publish("", self.queue, body,
                                   pika.BasicProperties(delivery_mode=2, content_type="application/msgpack"))
        return True
