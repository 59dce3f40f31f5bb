"""What the store takes off its queue: commands, one per message or many in a `commands` batch
(wire v2), each with the identity, id, reply address and deadline it came with."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bus.codec import DecodeError
from bus.message import Message
from bus.messages import USER_HEADER, CommandEnvelope


@dataclass
class Command:
    msg: Message  # the delivery it came in: acked once every command of it is answered
    body: Any
    id: str | None
    user: str
    reply_to: str | None
    correlation_id: str | None
    expires: float | None = None
    alone: bool = True  # the only command of its message

    @property
    def dedupe_key(self) -> str | None:
        """(user, message id), or None: a command without an id gets no dedupe."""
        return f"{self.user}\n{self.id}" if self.id else None


def commands_of(msg: Message) -> list[Command]:
    """The commands a delivery carries; DecodeError when a batch's envelope is malformed."""
    if msg.type == "commands":
        return [_inner(msg, entry) for entry in _envelopes(msg.body)]
    user = msg.headers.get(USER_HEADER)
    return [Command(msg, msg.body, msg.message_id, user if isinstance(user, str) else msg.user_id or "",
                    msg.reply_to, msg.correlation_id)]


def _envelopes(body: Any) -> list[CommandEnvelope]:
    if not isinstance(body, list):
        raise DecodeError("invalid", f"a commands message carries a list, not a {type(body).__name__}")
    try:
        return [CommandEnvelope.model_validate(entry) for entry in body]
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DecodeError("invalid", f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}") from None


def _inner(msg: Message, env: CommandEnvelope) -> Command:
    return Command(msg, env.command, env.id, env.user, env.reply_to, env.correlation_id, env.expires, alone=False)


@dataclass
class Answers:
    """A flush's replies, and the commands it took (so every message of them is acked once)."""

    replies: list[tuple[Command, Any]]  # reply parts: a list, or an iterator for a big read
    taken: list[Command]

    def messages(self) -> list[Message]:
        return list({id(cmd.msg): cmd.msg for cmd in self.taken}.values())
