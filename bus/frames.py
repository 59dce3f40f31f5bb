"""pika's check, for every method frame it reads, of whether a callback waits for it — without the
name sanitising that made it cost more than decoding the frame.

`Connection._has_pending_callbacks` asks `CallbackManager.pending`, whose decorator turns the
channel number and the method into the manager's string keys through `name_or_value`, which tries
`issubclass` on each first and catches the TypeError an instance raises: two exceptions per
delivery and per confirm. The keys are known without it: the prefix is `str(channel_number)`, the
key the method's `NAME` (what `name_or_value` returns for a method instance).
"""
from __future__ import annotations

from pika import connection, frame
from pika.callback import CallbackManager

PIKAS_OWN = connection.Connection._has_pending_callbacks


def _has_pending_callbacks(self, value: frame.Method):
    by_key = self.callbacks._stack.get(str(value.channel_number))
    if by_key is None:
        return None
    waiting = by_key.get(value.method.NAME)
    return None if waiting is None else len(waiting)


def install() -> None:
    """Idempotent; a pika whose callback manager keeps no `_stack` keeps its own check."""
    if isinstance(getattr(CallbackManager(), "_stack", None), dict):
        connection.Connection._has_pending_callbacks = _has_pending_callbacks
