"""The pending-callback check for a method frame answers exactly as pika's own does."""
from __future__ import annotations

import pytest
from pika import frame, spec
from pika.callback import CallbackManager

from bus import frames

PIKAS_OWN = frames.PIKAS_OWN


class Conn:
    def __init__(self):
        self.callbacks = CallbackManager()


@pytest.fixture
def conn() -> Conn:
    c = Conn()
    c.callbacks.add(1, spec.Basic.Ack, lambda *a: None, one_shot=False)
    c.callbacks.add(1, spec.Basic.Ack, lambda *a: None, one_shot=False)
    c.callbacks.add(1, spec.Basic.Cancel, lambda *a: None)
    c.callbacks.add(0, spec.Connection.Close, lambda *a: None)
    return c


@pytest.mark.parametrize("method", [spec.Basic.Deliver(), spec.Basic.Ack(), spec.Basic.Nack(), spec.Basic.Cancel(),
                                    spec.Connection.Close()])
@pytest.mark.parametrize("channel", [0, 1, 2])
def test_answers_as_pika_does(conn, method, channel):
    value = frame.Method(channel, method)
    assert frames._has_pending_callbacks(conn, value) == PIKAS_OWN(conn, value)


def test_a_used_one_shot_callback_is_no_longer_pending(conn):
    value = frame.Method(1, spec.Basic.Cancel())
    conn.callbacks.process(1, spec.Basic.Cancel, conn, value)
    assert frames._has_pending_callbacks(conn, value) is PIKAS_OWN(conn, value) is None


def test_install_replaces_pikas_check():
    from pika import connection
    frames.install()
    assert connection.Connection._has_pending_callbacks is frames._has_pending_callbacks
