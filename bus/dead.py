"""Dead-lettering with a reason: the message goes to `{c}.dead` with headers saying why and where."""
from __future__ import annotations

import structlog

from bus.connection import Bus
from bus.message import Message
from bus.metrics import DEAD_LETTERED
from bus.topology import DEAD_REASON, Names

DEAD_EXCHANGE = "x-kubus-dead-exchange"  # where the message was published (`kubus dead-letters --requeue`)

log = structlog.get_logger("bus.dead")
MAX_COPIED_HEADERS = 16 << 10  # a dead letter keeps the original headers up to this size (frame_max is 128 KiB)


def dead_letter(bus: Bus, names: Names, msg: Message, reason: str, detail: str, actor: str) -> None:
    """Publish the raw message to `{c}.dead`, then ack the original (drop it if the broker refuses)."""
    publish_dead(bus, names, msg.routing_key, msg.raw, reason, detail, actor, type=msg.type or "dead",
                 message_id=msg.message_id, correlation_id=msg.correlation_id,
                 headers={**_copied_headers(msg.headers), DEAD_EXCHANGE: msg.exchange},
                 on_confirm=lambda ok: msg.ack() if ok else msg.drop())


def publish_dead(bus: Bus, names: Names, routing_key: str, raw: bytes, reason: str, detail: str, actor: str, *,
                 type: str, message_id: str | None = None, correlation_id: str | None = None,
                 headers: dict | None = None, on_confirm=None) -> None:
    """Anything to `{c}.dead` with the headers saying why, who and from where (a whole message, one
    command of a batch, an event the broker would not take)."""
    log.warning("dead_letter", actor=actor, reason=reason, detail=detail[:300], routing_key=routing_key,
                message_id=message_id)
    DEAD_LETTERED.labels(reason).inc()
    headers = {**(headers or {}), DEAD_REASON: f"{reason}: {detail}"[:1000], "x-kubus-dead-actor": actor,
               "x-kubus-dead-routing-key": routing_key}
    bus.publish(names.dead, routing_key, raw, type=type, message_id=message_id, correlation_id=correlation_id,
                headers=headers, persistent=True, on_confirm=on_confirm)


def _copied_headers(headers: dict) -> dict:
    """The original headers, less any that are large, so the dead letter itself always fits a frame
    (the broker closes a connection over a frame too large); what was left out is noted."""
    kept, left, size = {}, [], 0
    for key, value in headers.items():
        if not isinstance(key, str):
            continue
        cost = len(key) + len(repr(value))
        if size + cost > MAX_COPIED_HEADERS:
            left.append(key[:64])
            continue
        kept[key] = value
        size += cost
    if left:
        kept["x-kubus-dead-headers-left-out"] = ", ".join(left)[:1000]
    return kept
