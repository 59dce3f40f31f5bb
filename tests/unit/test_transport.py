"""Frames queued in one ioloop turn leave in one write, in order, joined up to a size limit."""
from __future__ import annotations

from collections import deque

import pytest

from bus import transport


class Transport:
    def __init__(self, buffers: list[bytes]):
        self._tx_buffers = deque(buffers)
        self.writes: list[list[bytes]] = []


@pytest.fixture
def writes(monkeypatch):
    monkeypatch.setattr(transport, "_produce", lambda self: self.writes.append(list(self._tx_buffers)))

    def produce(buffers: list[bytes]) -> list[bytes]:
        t = Transport(buffers)
        transport._coalescing_produce(t)
        return t.writes[0]

    return produce


def test_small_frames_join_in_order(writes):
    assert writes([b"method", b"header", b"body", b"ack"]) == [b"methodheaderbodyack"]


def test_joining_stops_at_the_limit(writes):
    big = b"x" * transport.JOIN_LIMIT
    assert writes([b"a", b"b", big, b"c"]) == [b"ab", big, b"c"]
    assert writes([big, b"a", b"b"]) == [big, b"a", b"b"]


def test_a_single_buffer_is_left_alone(writes):
    assert writes([b"only"]) == [b"only"]
