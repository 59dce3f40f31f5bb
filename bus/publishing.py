"""Publishing on a `Bus`'s confirm-mode channel: each publish is remembered until the broker confirms,
nacks or returns it, and the caller hears which (the publishing half of `bus.connection`).

Everything here runs on the ioloop thread, like the rest of the connection.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import takewhile
from typing import Callable

import pika

from bus import codec
from bus.ids import new_id
from bus.metrics import STATS
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION

Confirm = Callable[[bool], None]
Returned = Callable[[str], None]


@dataclass
class Unconfirmed:
    """A publish the broker has not confirmed yet, with what to forget or tell once it does."""

    on_confirm: Confirm
    message_id: str
    on_return: Returned | None = None
    on_nack: Callable[[], None] | None = None
    at: float = 0.0  # time.monotonic() of the publish


class Publishing:
    """The publishing methods of `Bus` (its `channel`, `app_id`, `_seq`, `_confirms`, `_returns` and
    `_guard` are set up by the connection)."""

    def publish(self, exchange: str, routing_key: str, body: dict | bytes, *, type: str,
                message_id: str | None = None, correlation_id: str | None = None,
                reply_to: str | None = None, headers: dict | None = None,
                persistent: bool = False, cc: list[str] | None = None,
                mandatory: bool = False, on_confirm: Confirm | None = None,
                on_return: Returned | None = None, on_nack: Callable[[], None] | None = None,
                user_id: str | None = None, expiration_s: float | None = None) -> bool:
        """Publish one message. `on_confirm(True|False)` once the broker confirms or the channel dies;
        `on_return(why)` if a mandatory message was unroutable; `on_nack()` if the broker refused it
        (a full queue with `x-overflow: reject-publish`), not when the connection drops."""
        channel = self.channel
        if channel is None or not channel.is_open:
            if on_confirm:
                on_confirm(False)
            return False
        all_headers = {SCHEMA_HEADER: SCHEMA_VERSION}
        if headers:
            all_headers.update(headers)
        if cc:
            all_headers["CC"] = cc
        message_id = message_id or new_id()
        props = pika.BasicProperties(
            content_type="application/msgpack",
            type=type,
            message_id=message_id,
            correlation_id=correlation_id,
            reply_to=reply_to,
            app_id=self.app_id,
            user_id=user_id,
            timestamp=int(time.time()),
            delivery_mode=2 if persistent else 1,
            headers=all_headers,
            expiration=str(max(1, int(expiration_s * 1000))) if expiration_s else None,
        )
        raw = body if isinstance(body, bytes) else codec.encode(body)
        if on_return is not None:
            self._returns[message_id] = on_return
        channel.basic_publish(exchange, routing_key, raw, props, mandatory=mandatory)
        STATS.published += 1
        self._seq += 1
        self._confirms[self._seq] = Unconfirmed(on_confirm or _ignore, message_id, on_return, on_nack,
                                                 time.monotonic() if self._guard is not None else 0.0)
        return True

    def _on_confirm(self, frame) -> None:
        method = frame.method
        ok = isinstance(method, pika.spec.Basic.Ack)
        tag = method.delivery_tag
        if method.multiple:
            done = list(takewhile(tag.__ge__, self._confirms))  # in publish order: the oldest first
        else:
            done = [tag] if tag in self._confirms else []
        STATS.settled(ok, len(done))
        for seq in done:
            self._settled(self._confirms.pop(seq), ok)
        if not ok and done and self._guard is not None:
            self._guard.nacked()

    def _settled(self, entry: Unconfirmed, ok: bool) -> None:
        """The broker sends basic.return before the ack of an unroutable message: once confirmed,
        the return handler can no longer fire, so it goes (unless a later publish reused the id)."""
        if entry.on_return is not None and self._returns.get(entry.message_id) is entry.on_return:
            del self._returns[entry.message_id]
        if not ok and entry.on_nack is not None:
            entry.on_nack()
        entry.on_confirm(ok)

    def _on_return(self, _channel, method, props, _body) -> None:
        STATS.returned += 1
        callback = self._returns.pop(props.message_id, None)
        if callback is not None:
            callback(f"{method.reply_text} (exchange {method.exchange!r}, key {method.routing_key!r})")

    def forget_return(self, message_id: str) -> None:
        self._returns.pop(message_id, None)

    def confirmed(self, on_done: Callable[[], None]) -> None:
        """Call `on_done` once every publish made so far is confirmed (or failed)."""
        entry = self._confirms.get(self._seq)
        if entry is None:
            on_done()
            return
        inner = entry.on_confirm

        def chained(ok: bool) -> None:
            inner(ok)
            on_done()

        entry.on_confirm = chained


def _ignore(_ok: bool) -> None:
    pass
