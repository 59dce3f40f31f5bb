"""Questions asked on a short-lived side channel of a connection, so that a refusal (a lock another
connection holds, a queue that does not exist) closes that channel and never the main one."""
from __future__ import annotations

from typing import Callable

from bus.connection import Bus

NOT_FOUND = 404  # AMQP's reply code for a queue that does not exist


def consumer_count(bus: Bus, queue: str, done: Callable[[int | None], None]) -> None:
    """How many consumers `queue` has (None if it does not exist)."""
    answered = []

    def answer(count: int | None) -> None:
        if not answered:
            answered.append(count)
            done(count)

    def on_open(channel) -> None:
        channel.add_on_close_callback(lambda _c, _r: answer(None))

        def declared(frame) -> None:
            answer(frame.method.consumer_count)
            channel.close()

        channel.queue_declare(queue, passive=True, callback=declared)

    bus.side_channel(on_open)


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
    answered = []

    def answer(exists: bool | None) -> None:
        if not answered:
            answered.append(exists)
            done(exists)

    def on_open(channel) -> None:
        channel.add_on_close_callback(lambda _c, reason: answer(
            False if getattr(reason, "reply_code", None) == NOT_FOUND else None))

        def declared(_frame) -> None:
            answer(True)
            channel.close()

        channel.queue_declare(queue, passive=True, callback=declared)

    bus.side_channel(on_open)
