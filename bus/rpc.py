"""Request/reply over RabbitMQ's direct reply-to; replies may come in parts (`more: true`)."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import structlog

from api.status import StatusError
from bus import codec
from bus.connection import Bus
from bus.message import Message

REPLY_TO = "amq.rabbitmq.reply-to"
log = structlog.get_logger("bus.rpc")

Done = Callable[[dict[str, Any] | StatusError], None]


@dataclass
class _Call:
    done: Done
    timer: Any
    ttl: float  # the request expires in the queue when its caller stops waiting
    items: list = field(default_factory=list)
    first: dict | None = None


def unwrap(reply: dict[str, Any] | StatusError) -> dict[str, Any]:
    """The ok reply, or raise the StatusError it carries."""
    if isinstance(reply, StatusError):
        raise reply
    if not reply.get("ok"):
        raise StatusError.from_dict(reply.get("status") or {})
    return reply


class RpcClient:
    """Pending calls by correlation id; a reply, a timeout or a lost connection completes each once."""

    def __init__(self, bus: Bus, max_bytes: int):
        self.bus = bus
        self.max_bytes = max_bytes
        self.pending: dict[str, _Call] = {}
        self.ready = False
        self._waiting: list[Callable[[], None]] = []  # calls made before the reply consumer is up

    def setup(self) -> None:
        """Start consuming replies; call after every (re)connect. Calls made meanwhile wait for it:
        a request must not reach the broker before its reply-to consumer does."""
        self.ready = False
        self.bus.consume_auto_ack(REPLY_TO, self._on_reply, on_ok=self._on_consuming)

    def _on_consuming(self) -> None:
        self.ready = True
        waiting, self._waiting = self._waiting, []
        for send in waiting:
            send()

    def call(self, exchange: str, routing_key: str, body: dict, done: Done, timeout: float, *,
             message_id: str | None = None, persistent: bool = False, user_id: str | None = None) -> str:
        corr = uuid.uuid4().hex
        message_id = message_id or uuid.uuid4().hex
        call = _Call(done, self.bus.call_later(timeout, lambda: self._expire(corr, timeout)), timeout)
        self.pending[corr] = call
        send = lambda: self._send(corr, exchange, routing_key, body, message_id, persistent, user_id)  # noqa: E731
        if self.ready:
            send()
        else:
            self._waiting.append(send)
        return corr

    def _send(self, corr: str, exchange: str, routing_key: str, body: dict, message_id: str, persistent: bool,
              user_id: str | None) -> None:
        if corr not in self.pending:
            return  # timed out while waiting for the connection
        sent = self.bus.publish(exchange, routing_key, body, type="request", message_id=message_id,
                                correlation_id=corr, reply_to=REPLY_TO, persistent=persistent,
                                mandatory=True, user_id=user_id, expiration_s=self.pending[corr].ttl,
                                on_return=lambda why: self._fail(corr, "ServiceUnavailable", f"no consumer: {why}"))
        if not sent:
            self._fail(corr, "ServiceUnavailable", "not connected to the broker")

    def tell(self, exchange: str, routing_key: str, body: dict, *, ttl: float, user_id: str | None = None) -> None:
        """A request nobody waits for: no reply address, so no reply is sent (an Event, say)."""
        self.bus.publish(exchange, routing_key, body, type="request", message_id=uuid.uuid4().hex, user_id=user_id,
                         expiration_s=ttl)

    def _expire(self, corr: str, timeout: float) -> None:
        self._fail(corr, "Timeout", f"the server was unable to return a response in the time allotted "
                                    f"({timeout:g}s), but may still be processing the request")

    def _fail(self, corr: str, reason: str, message: str) -> None:
        call = self.pending.pop(corr, None)
        if call is not None:
            self.bus.cancel(call.timer)
            call.done(StatusError(reason, message))

    def fail_all(self, reason: str = "ServiceUnavailable", message: str = "lost the connection to the broker") -> None:
        self.ready = False
        self._waiting.clear()
        for corr in list(self.pending):
            self._fail(corr, reason, message)

    def _on_reply(self, msg: Message) -> None:
        call = self.pending.get(msg.correlation_id or "")
        if call is None:
            return  # a late reply to a call that timed out
        try:
            body = codec.decode(msg.raw, msg.headers, self.max_bytes)
        except codec.DecodeError as exc:
            self._fail(msg.correlation_id, "InternalError", f"undecodable reply: {exc}")
            return
        if "items" in body:
            call.items.extend(body["items"])
        if call.first is None:
            call.first = body
        if body.get("more"):
            return
        del self.pending[msg.correlation_id]
        self.bus.cancel(call.timer)
        result = dict(call.first)
        if "items" in body:
            result["items"] = call.items
        result["more"] = False
        call.done(result)
