"""What a consumer sees of a delivery: the body, the properties that matter, and ack/reject."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

Settle = Callable[[Any, int, str], None]  # (channel, delivery tag, "ack" | "requeue" | "drop")


@dataclass
class Message:
    """One delivery. `body` is set once the runtime has decoded `raw`."""

    raw: bytes
    routing_key: str
    exchange: str
    redelivered: bool
    type: str | None
    message_id: str | None
    correlation_id: str | None
    reply_to: str | None
    user_id: str | None
    app_id: str | None
    headers: dict[str, Any]
    settle: Callable[[str], None] = field(repr=False)
    expiration_s: float | None = None
    body: dict[str, Any] | None = None
    settled: bool = False

    def ack(self) -> None:
        self._settle("ack")

    def requeue(self) -> None:
        self._settle("requeue")

    def drop(self) -> None:
        """Reject without requeue (the queue's dead-letter exchange takes it)."""
        self._settle("drop")

    def _settle(self, how: str) -> None:
        if not self.settled:
            self.settled = True
            self.settle(how)


def make_message(settle_on: Settle, channel, method, props, raw: bytes) -> Message:
    """The delivery as a Message; `settle_on` is how its connection settles a delivery (`Bus.settle`)."""
    tag = method.delivery_tag

    def settle(how: str) -> None:
        settle_on(channel, tag, how)

    return Message(
        raw=raw,
        routing_key=method.routing_key,
        exchange=method.exchange,
        redelivered=bool(method.redelivered),
        type=props.type,
        message_id=props.message_id,
        correlation_id=props.correlation_id,
        reply_to=props.reply_to,
        user_id=props.user_id,
        app_id=props.app_id,
        headers=dict(props.headers or {}),
        settle=settle,
        expiration_s=int(props.expiration) / 1000 if props.expiration else None,
    )
