"""What an auditing apiserver learns of its commands (contract 2, command batch): a `commands`
message that names a reply address of its own (the message's AMQP `reply_to`) gets ONE reply there
once every command of it is answered, `{ok: true, outcomes: [[code, reason, message] | None, …]}` —
one entry per command, in the batch's order: the status its client was answered with (200 for any
ok answer), None for one dropped unanswered (its deadline had passed). A batch that names no
address, as from an apiserver that does not audit, costs a glance at its properties."""
from __future__ import annotations

from typing import Any

import msgpack

from bus.message import Message
from bus.messages import valid_reply_to
from store.inbox import Answers

OK_HEAD = b"\xa2ok\xc3"  # `"ok": true`, the first field of every ok answer the store encodes


def outcome_replies(answers: Answers, messages: list[Message]) -> list[tuple[str, str | None, list]]:
    """(reply_to, correlation_id, [body]) for every message of the flush that asked for its outcomes."""
    asked = [msg for msg in messages if msg.reply_to and msg.type == "commands" and valid_reply_to(msg.reply_to)]
    if not asked:
        return []
    parts_of = {id(cmd): parts for cmd, parts in answers.replies}
    return [(msg.reply_to, msg.correlation_id, [{"ok": True, "outcomes": [
        outcome(parts_of.get(id(cmd))) for cmd in answers.taken if cmd.msg is msg]}]) for msg in asked]


def outcome(parts: Any) -> list | None:
    """[code, reason, message] of the answer whose parts these are; None: no answer."""
    if parts is None:
        return None
    first = parts[0] if isinstance(parts, list) and parts else None
    if first is None or (isinstance(first, bytes) and first[1:5] == OK_HEAD):
        return [200, None, None]  # a big read made as it is sent, or an ok answer
    body = msgpack.unpackb(first, raw=False) if isinstance(first, bytes) else first
    if body.get("ok"):
        return [200, None, None]
    status = body.get("status") or {}
    return [status.get("code", 500), status.get("reason"), status.get("message")]
