"""Acks of one turn join into one `multiple` ack for the settled head; a held delivery is never covered."""
from __future__ import annotations

from bus.acks import Acks


class Channel:
    def __init__(self):
        self.sent: list[tuple] = []

    def basic_ack(self, tag: int, multiple: bool = False) -> None:
        self.sent.append(("ack", tag, multiple))

    def basic_nack(self, tag: int, requeue: bool) -> None:
        self.sent.append(("nack", tag, requeue))


def delivered(*tags: int) -> tuple[Acks, Channel]:
    channel = Channel()
    acks = Acks(channel)
    for tag in tags:
        acks.delivered(tag)
    return acks, channel


def test_acks_of_the_oldest_deliveries_leave_as_one_frame():
    acks, channel = delivered(1, 2, 3, 4)
    for tag in (2, 1, 3):
        acks.ack(tag)
    acks.flush()
    assert channel.sent == [("ack", 3, True)]
    acks.ack(4)
    acks.flush()
    assert channel.sent[-1] == ("ack", 4, True)


def test_a_held_delivery_is_not_covered_and_the_acks_behind_it_go_alone():
    acks, channel = delivered(1, 2, 3, 4)
    for tag in (1, 3, 4):
        acks.ack(tag)
    acks.flush()
    assert channel.sent == [("ack", 1, True), ("ack", 3, False), ("ack", 4, False)]
    acks.ack(2)
    acks.flush()
    assert channel.sent[-1] == ("ack", 2, True)


def test_a_nack_leaves_at_once_and_no_longer_holds_the_head():
    acks, channel = delivered(1, 2, 3)
    acks.nack(1, requeue=False)
    acks.ack(2)
    acks.flush()
    assert channel.sent == [("nack", 1, False), ("ack", 2, True)]


def test_an_ack_of_a_delivery_never_seen_is_sent_as_it_was():
    acks, channel = delivered()
    acks.ack(7)
    assert channel.sent == [("ack", 7, False)]
    acks.flush()
    assert channel.sent == [("ack", 7, False)]
