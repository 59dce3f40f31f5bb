"""Questions asked on a short-lived side channel of a connection, so that a refusal (a lock another
connection holds, a queue that does not exist) closes that channel and never the main one."""
from __future__ import annotations

from typing import Callable

from bus.connection import Bus

NOT_FOUND = 404  # AMQP's reply code for a queue that does not exist


def consumer_count(bus: Bus, queue: str, done: Callable[[int | None], None]) -> None:
    """How many consumers `queue` has (None if it does not exist)."""
    _passive(bus, queue, done, lambda frame: frame.method.consumer_count, lambda _reason: None)


def try_exclusive(bus: Bus, queue: str, on_result: Callable[[bool], None]) -> None:
    """A lock held by this connection: declare an exclusive queue. `on_result(True)` when held;
    `on_result(False)` when another connection holds it."""
    held = [False]

    def on_closed(_channel, _reason) -> None:
        if not held[0]:
            on_result(False)

    def on_declared(_frame) -> None:
        held[0] = True
        on_result(True)

    def on_open(channel) -> None:
        channel.add_on_close_callback(on_closed)
        channel.queue_declare(queue, exclusive=True, auto_delete=True, callback=on_declared)

    bus.side_channel(on_open)


def queue_exists(bus: Bus, queue: str, done: Callable[[bool | None], None]) -> None:
    """Whether `queue` exists: True, False (the broker said NOT_FOUND), or None when the channel
    closed for another reason (the connection went): nobody can tell."""
    _passive(bus, queue, done, lambda _frame: True,
             lambda reason: False if getattr(reason, "reply_code", None) == NOT_FOUND else None)


def _passive(bus: Bus, queue: str, done: Callable, found: Callable, closed: Callable) -> None:
    """Declare `queue` passively on a side channel: `done(found(frame))` when it exists, else
    `done(closed(reason))` as its channel closes; once either way."""
    answered = []

    def answer(value) -> None:
        if not answered:
            answered.append(value)
            done(value)

    def on_open(channel) -> None:
        channel.add_on_close_callback(lambda _c, reason: answer(closed(reason)))

        def declared(frame) -> None:
            answer(found(frame))
            channel.close()

        channel.queue_declare(queue, passive=True, callback=declared)

    bus.side_channel(on_open)
