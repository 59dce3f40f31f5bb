"""One AMQP connection driven by pika's ioloop: reconnects with backoff, publishes with confirms.

Everything here runs on the ioloop thread; other threads hand work over with `call_soon`.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import pika
import structlog
from pika.adapters.select_connection import IOLoop
from tenacity.wait import wait_exponential_jitter

from bus import frames, hotpath, transport
from bus.acks import Acks
from bus.metrics import STATS
from bus.message import Message, make_message
from bus.nodes import Nodes
from bus.publishing import Publishing, Returned, Unconfirmed
from bus.silence import SilenceWatch
from bus.staleleader import StaleLeaderGuard
from config.urls import split

log = structlog.get_logger("bus")
transport.install()
frames.install()
hotpath.install()

INTERNAL_ERROR = 541  # the broker's reply code when one of its channel processes crashed
CONNECT_TIMEOUT_S = 3.0  # a frozen node accepts TCP but never answers AMQP: pika's 15 s per try, on every node's turn
Ready = Callable[["Bus"], None]


class _RetryState:
    """The slice of tenacity's RetryCallState that its wait strategies read."""

    def __init__(self, attempt: int):
        self.attempt_number = attempt


class Bus(Publishing):
    """An AMQP connection with one confirm-mode channel; calls `on_ready` after every (re)connect."""

    def __init__(self, url: str, connection_name: str, app_id: str, on_ready: Ready,
                 on_lost: Callable[[], None] | None = None, heartbeat: int = 30, quorum: bool = False):
        self.urls = split(url)  # the nodes of one cluster, tried in turn
        self._nodes = Nodes(self.urls)
        self.heartbeat = heartbeat
        self.connection_name = connection_name
        self.app_id = app_id
        self.user = pika.URLParameters(self.urls[0]).credentials.username
        self._on_ready = on_ready
        self._on_lost = on_lost
        self.ioloop = IOLoop()
        self._conn: pika.SelectConnection | None = None
        self.channel = None
        self._acks: Acks | None = None
        self._acks_due = False
        self._seq = 0
        self._confirms: dict[int, Unconfirmed] = {}
        self._returns: dict[str, Returned] = {}  # by message id, until returned or confirmed
        self._cancelled: dict[str, Callable[[], None]] = {}
        self._stopping = False
        self._attempt = 0
        self._backoff = wait_exponential_jitter(multiplier=0.2, max=10, jitter=0.5)
        self.ready = threading.Event()
        self.generation = 0  # bumps on every new channel; lets callers spot a reconnect
        self._loop_thread: int | None = None
        self.lost_reason: BaseException | None = None  # why the last connection ended
        self._guard = StaleLeaderGuard(connection_name, self._oldest_unconfirmed, self._reopen,
                                       self.call_later) if quorum else None
        self._silence = SilenceWatch(connection_name, heartbeat, self.call_later, on_silent=self._nodes.shun)

    # ---- lifecycle -------------------------------------------------------------------------
    def run_forever(self) -> None:
        """Connect, and reconnect after any loss, until `stop()`; runs the ioloop in this thread."""
        self._loop_thread = threading.get_ident()
        self._connect()
        self._silence.start()
        if self._guard is not None:
            self._guard.start()
        self.ioloop.start()
        self._loop_thread = None

    def start_thread(self, timeout: float | None = 30.0) -> "Bus":
        """Run the ioloop on a thread of its own and wait for the connection (`timeout` None: don't)."""
        self._thread = threading.Thread(target=self.run_forever, name=f"bus-{self.connection_name}", daemon=True)
        self._thread.start()
        if timeout is not None and not self.ready.wait(timeout):
            self.stop()
            raise ConnectionError(f"no connection to the broker at {', '.join(map(_safe, self.urls))} within {timeout}s")
        return self

    def stop(self) -> None:
        """Close the connection and end the ioloop; safe from any thread."""
        self.call_soon(self._close)

    def join(self, timeout: float | None = None) -> None:
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def unsent_bytes(self) -> int:
        """Bytes handed to the connection that the socket has not taken yet (0 when not connected)."""
        transport = getattr(self._conn, "_transport", None)
        return transport.get_write_buffer_size() if transport is not None else 0

    def push(self) -> None:
        """Send what is buffered now rather than when this ioloop turn ends: a stage that hands on part
        of a turn lets the next stage start while it goes on with the rest."""
        tx = getattr(self._conn, "_transport", None)
        if tx is not None:
            transport.send_now(tx)

    def call_soon(self, fn: Callable[[], Any]) -> None:
        self.ioloop.add_callback_threadsafe(fn)

    def run_on_loop(self, fn: Callable[[], Any]) -> None:
        """Run `fn` now when called on the ioloop's thread (a reply's callback sending the next
        request), else hand it over: no wake-up pipe write and read for work already on the loop."""
        if threading.get_ident() == self._loop_thread:
            fn()
        else:
            self.call_soon(fn)

    def call_later(self, delay: float, fn: Callable[[], Any]):
        return self.ioloop.call_later(max(0.0, delay), fn)

    def cancel(self, handle) -> None:
        if handle is not None:
            self.ioloop.remove_timeout(handle)

    def _close(self) -> None:
        """A connection still opening is closed once it opens (`_on_open`), or fails to."""
        self._stopping = True
        if self._conn is not None and self._conn.is_open:
            self._close_connection()
        elif self._conn is None or self._conn.is_closed:
            self.ioloop.stop()

    # ---- connecting ------------------------------------------------------------------------
    @property
    def node(self) -> str:
        """The node this connection goes to (or tries next), without credentials: for logs."""
        return _safe(self.url)

    @property
    def url(self) -> str:
        """The node this connection uses now (or tries next)."""
        return self._nodes.url

    def _connect(self) -> None:
        self._nodes.settle()
        params = pika.URLParameters(self.url)
        params.client_properties = {"connection_name": self.connection_name, "product": "kubus"}
        params.heartbeat = self.heartbeat
        params.connection_attempts = 1
        params.socket_timeout = params.stack_timeout = CONNECT_TIMEOUT_S
        params.blocked_connection_timeout = 60
        self._conn = pika.SelectConnection(
            params,
            on_open_callback=self._on_open,
            on_open_error_callback=self._on_open_error,
            on_close_callback=self._on_closed,
            custom_ioloop=self.ioloop,
        )

    def _on_open(self, conn) -> None:
        self._silence.watch(conn)
        if self._stopping:  # stop() came while it opened
            self._close_connection()
            return
        conn.channel(on_open_callback=self._on_channel)

    def _on_channel(self, channel) -> None:
        self.channel = channel
        self._acks = Acks(channel)
        self._seq = 0
        channel.add_on_close_callback(self._on_channel_closed)
        channel.add_on_return_callback(self._on_return)
        channel.add_on_cancel_callback(self._on_broker_cancel)
        self._cancelled.clear()
        channel.confirm_delivery(ack_nack_callback=self._on_confirm, callback=self._on_confirm_mode)

    def _on_confirm_mode(self, _frame) -> None:
        self._attempt = 0
        self.generation += 1
        log.debug("bus.ready", connection=self.connection_name, generation=self.generation)
        self._on_ready(self)
        self.ready.set()

    def _on_open_error(self, _conn, exc) -> None:
        log.warning("bus.connect_failed", connection=self.connection_name, node=self.node, error=str(exc))
        self._nodes.shun()
        self._nodes.advance()  # the next node of the cluster, if there are several
        self._retry_later()

    def _on_channel_closed(self, _channel, reason) -> None:
        self.channel = None
        if self._conn is not None and self._conn.is_open:
            log.error("bus.channel_closed", connection=self.connection_name, reason=str(reason))
            self._close_connection()

    def _on_closed(self, _conn, reason) -> None:
        self.channel = None
        self.ready.clear()
        self._fail_pending()
        if self._stopping:
            self.ioloop.stop()
            return
        log.warning("bus.connection_lost", connection=self.connection_name, node=self.node, reason=str(reason))
        self.lost_reason = reason
        if self._on_lost:
            self._on_lost()
        self._nodes.advance()
        self._retry_later()

    def _retry_later(self) -> None:
        if self._stopping:
            self.ioloop.stop()
            return
        self._attempt += 1
        delay = self._backoff(_RetryState(self._attempt))
        self.call_later(delay, self._connect)

    def _oldest_unconfirmed(self) -> float | None:
        return next((entry.at for entry in self._confirms.values()), None)  # in publish order

    def reconnect(self, why: str = "reconnect asked for") -> None:
        """Drop this connection (and whatever it holds: exclusive locks, unacked deliveries) and make a
        new one, to the next node that answers."""
        self._reopen(why)

    def _reopen(self, why: str) -> None:
        """Drop the socket rather than close: a connection is reopened because something of it stopped
        answering (a stream, a queue's stale leader), and a close then waits too (2 s and more, seen);
        the broker releases what the connection held either way."""
        if self._conn is not None and self._conn.is_open:
            self.push()  # what this turn queued (acks, replies) still goes out
            self._silence.drop(self._conn, why)  # -> _on_closed: pending calls fail, the next node is tried

    def _close_connection(self) -> None:
        self._conn.close()
        self._silence.closing(self._conn)

    def _fail_pending(self) -> None:
        pending, self._confirms = self._confirms, {}
        self._returns.clear()
        for entry in pending.values():
            entry.on_confirm(False)

    def side_channel(self, on_open: Callable[[Any], None]) -> None:
        """A short-lived channel of this connection (see `bus.side`): a refusal closes it, not `channel`."""
        self._conn.channel(on_open_callback=on_open)

    # ---- consuming -------------------------------------------------------------------------
    def consume(self, queue: str, handler: Callable[[Message], None], prefetch: int,
                exclusive: bool = False) -> str:
        channel = self.channel
        channel.basic_qos(prefetch_count=prefetch)

        def on_message(ch, method, props, body):
            STATS.delivered += 1
            STATS.redelivered += method.redelivered
            if ch is self.channel:
                self._acks.delivered(method.delivery_tag)
            handler(make_message(self.settle, ch, method, props, body))

        return channel.basic_consume(queue, on_message, exclusive=exclusive)

    def consume_auto_ack(self, queue: str, handler: Callable[[Message], None],
                         on_ok: Callable[[], None] = lambda: None) -> str:
        def on_message(ch, method, props, body):
            STATS.delivered += 1
            STATS.redelivered += method.redelivered
            msg = make_message(self.settle, ch, method, props, body)
            msg.settled = True
            handler(msg)

        return self.channel.basic_consume(queue, on_message, auto_ack=True, callback=lambda _frame: on_ok())

    def on_cancel(self, tag: str, callback: Callable[[], None]) -> None:
        """Call `callback` if the broker cancels this consumer (its queue was deleted)."""
        self._cancelled[tag] = callback

    def _on_broker_cancel(self, frame) -> None:
        callback = self._cancelled.pop(frame.method.consumer_tag, None)
        if callback is not None:
            callback()

    def cancel_consumer(self, tag: str, callback: Callable[[], None] | None = None) -> None:
        self._cancelled.pop(tag, None)
        if self.channel is not None and self.channel.is_open:
            self.channel.basic_cancel(tag, callback=(lambda _f: callback()) if callback else None)
        elif callback:
            callback()

    def settle(self, channel, tag: int, how: str) -> None:
        if channel is not self.channel or not channel.is_open:
            return  # the delivery died with its channel; the broker redelivers it
        if how != "ack":
            self._acks.nack(tag, requeue=(how == "requeue"))
            return
        self._acks.ack(tag)
        if not self._acks_due:
            self._acks_due = True
            self.ioloop.call_later(0, self._send_acks)

    def _send_acks(self) -> None:
        self._acks_due = False
        if self.channel is not None and self.channel.is_open:
            self._acks.flush()


def _safe(url: str) -> str:
    params = pika.URLParameters(url)
    return f"{params.host}:{params.port}{params.virtual_host}"
