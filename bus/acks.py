"""Acks joined into one `basic.ack multiple` where deliveries are settled in order.

An apiserver acks every request it forwarded when the broker confirms their batch: sixteen acks,
one frame and one queue update each. Joined, the acks of one ioloop turn that settle a contiguous
run of the oldest unsettled deliveries go out as one frame with `multiple`; an ack that would cover a
delivery still held (a request waiting on the store's answer) goes out alone, as before.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any


class Acks:
    """The unsettled manual-ack deliveries of one channel, oldest first, and which are acked."""

    def __init__(self, channel: Any):
        self.channel = channel
        self.unsettled: OrderedDict[int, bool] = OrderedDict()  # delivery tag -> acked, not yet sent

    def delivered(self, tag: int) -> None:
        self.unsettled[tag] = False

    def ack(self, tag: int) -> None:
        if tag in self.unsettled:
            self.unsettled[tag] = True
        else:  # not seen delivered (an auto-ack consumer's tag is never acked): as it was
            self.channel.basic_ack(tag)

    def nack(self, tag: int, requeue: bool) -> None:
        self.unsettled.pop(tag, None)
        self.channel.basic_nack(tag, requeue=requeue)

    def flush(self) -> None:
        """One ack with `multiple` for the settled head, one each for acked deliveries behind a held one."""
        last = None
        while self.unsettled:
            tag, acked = next(iter(self.unsettled.items()))
            if not acked:
                break
            self.unsettled.popitem(last=False)
            last = tag
        if last is not None:
            self.channel.basic_ack(last, multiple=True)
        behind = [tag for tag, acked in self.unsettled.items() if acked]
        for tag in behind:
            del self.unsettled[tag]
            self.channel.basic_ack(tag)
