"""Dead-lettering with a reason: the message goes to `{c}.dead` with headers saying why and where."""
from __future__ import annotations

import structlog

from bus.connection import Bus
from bus.message import Message
from bus.topology import DEAD_REASON, Names

log = structlog.get_logger("bus.dead")


def dead_letter(bus: Bus, names: Names, msg: Message, reason: str, detail: str, actor: str) -> None:
    """Publish the raw message to `{c}.dead`, then ack the original (drop it if the broker refuses)."""
    log.warning("dead_letter", actor=actor, reason=reason, detail=detail[:300], routing_key=msg.routing_key,
                message_id=msg.message_id)
    headers = {k: v for k, v in msg.headers.items() if isinstance(k, str)}
    headers.update({DEAD_REASON: f"{reason}: {detail}"[:1000], "x-kubus-dead-actor": actor,
                    "x-kubus-dead-routing-key": msg.routing_key})
    bus.publish(names.dead, msg.routing_key, msg.raw, type=msg.type or "dead", message_id=msg.message_id,
                headers=headers, persistent=True, on_confirm=lambda ok: msg.ack() if ok else msg.drop())
