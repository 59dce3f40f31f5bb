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


def waiting(callbacks: CallbackManager, channel_number: int, name: str) -> list | None:
    """The entries pika's callback manager keeps for this channel and method name; None if none."""
    by_key = callbacks._stack.get(str(channel_number))
    return None if by_key is None else by_key.get(name)


def _has_pending_callbacks(self, value: frame.Method):
    entries = waiting(self.callbacks, value.channel_number, value.method.NAME)
    return None if entries is None else len(entries)


def install() -> None:
    """Idempotent; a pika whose callback manager keeps no `_stack` keeps its own check."""
    if isinstance(getattr(CallbackManager(), "_stack", None), dict):
        connection.Connection._has_pending_callbacks = _has_pending_callbacks
