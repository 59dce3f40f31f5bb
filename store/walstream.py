"""The store's end of the stream `{c}.store.wal` (AMQP 0-9-1 through pika, scale-out.md §1.4): declared
as a stream, appended to through the default exchange, read from an offset with manual acks — never
a nack, which closes a stream consumer's connection. Each delivery's `x-stream-offset` header is its
place in the log."""
from __future__ import annotations

from typing import Any, Callable

import pika
import structlog

from bus.connection import Bus
from store import wal

PREFETCH = 256
REOPEN_S = 0.2
log = structlog.get_logger("store")

Entry = Callable[[int, dict], None]  # (offset, entry)


class WalStream:
    def __init__(self, bus: Bus, queue: str, max_bytes: int, segment_bytes: int, on_entry: Entry,
                 on_bad: Callable[[int, str], None], resume: Callable[[], int | str]):
        self.bus, self.queue, self.on_entry, self.on_bad, self.resume = bus, queue, on_entry, on_bad, resume
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
            log.info("store.wal_channel_lost", reason=str(reason)[:200])
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
        try:
            entry = wal.decode(body)
        except Exception as exc:  # noqa: BLE001 - whatever a foreign writer put there: skip it, say so
            self.on_bad(offset, str(exc)[:200])
            return
        self.on_entry(offset, entry)

    def append(self, entry: dict) -> bool:
        """Publish an entry; False when there is no channel (the caller waits for its read-back anyway)."""
        if self.channel is None or not self.channel.is_open:
            return False
        self.channel.basic_publish("", self.queue, wal.encode(entry),
                                   pika.BasicProperties(delivery_mode=2, content_type="application/msgpack"))
        return True
