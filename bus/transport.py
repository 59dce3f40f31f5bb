"""Fewer socket calls per message: one write per ioloop turn instead of one per AMQP frame, and reads
that take what has come in a few calls.

pika queues every frame it marshals (a publish is three: method, header, body; an ack is one) as
its own buffer and `_produce` sends them one `send()` each. A store flush that replies, acks and
publishes a few hundred messages then costs a thousand syscalls here and as many TCP segments for
the broker to read. Joining what is queued before sending keeps the bytes and their order and
changes only how many writes carry them. `send_now` is the other way round: a stage that hands
on part of its turn (the apiserver's full command batch) writes it before the turn ends.

Reading, pika asks for 4 KiB a call, and calls again until the socket says it would block: a burst
of 64 replies (45 KiB) took a dozen calls and ended in an exception. Here a call takes up to 64 KiB,
and a call that returns less than it asked for ends the read: the socket is drained, and the poller
(level-triggered) reports it again when more comes. What a read's handlers write is sent when the
read ends, rather than after a writability watch is turned on (a syscall), reported by the next
poll, and turned off (another): the socket can almost always take it. All of it reaches into
pika's transport.
"""
from __future__ import annotations

from pika.adapters.select_connection import IOLoop
from pika.adapters.utils.io_services_utils import (_LOGGER, _TRY_IO_AGAIN_SOCK_ERROR_CODES, _AsyncPlaintextTransport,
                                                   _AsyncTransportBase)

_produce = _AsyncTransportBase._produce
PIKAS_WRITE = _AsyncPlaintextTransport.write
PIKAS_READABLE = _AsyncPlaintextTransport._on_socket_readable
PIKAS_TIMEOUTS = IOLoop.process_timeouts
RECV_BYTES = 1 << 16


JOIN_LIMIT = 1 << 20  # bytes joined into one write at most: a partial send re-slices what is left


def _coalescing_produce(self) -> None:
    buffers = self._tx_buffers
    if len(buffers) > 1:
        taken, size = 0, 0
        for chunk in buffers:
            if taken and size + len(chunk) > JOIN_LIMIT:
                break
            taken, size = taken + 1, size + len(chunk)
        if taken > 1:
            joined = b"".join(buffers.popleft() for _ in range(taken))
            buffers.appendleft(joined)
    _produce(self)


def send_now(tx: _AsyncTransportBase) -> None:
    """Write what is queued now rather than when the ioloop next finds the socket writable."""
    if not tx.get_write_buffer_size():
        return
    try:
        tx._produce()
    except OSError:
        return  # what is left waits for the watcher, set already or when the read being handled ends
    if not tx.get_write_buffer_size():  # pika asserts there is data when the socket is writable
        tx._nbio.remove_writer(tx._sock.fileno())


def _consume_until_short(self) -> None:
    """pika's `_consume`, ending at the first read that leaves the socket drained."""
    taken = 0
    while self._state == self._STATE_ACTIVE and taken < self._MAX_CONSUME_BYTES:
        data = self._sigint_safe_recv(self._sock, self._MAX_RECV_BYTES)
        if not data:
            _LOGGER.error("Socket EOF; %s", self._sock)  # as pika's own
            raise self.RxEndOfFile()
        taken += len(data)
        self._protocol.data_received(data)
        if len(data) < self._MAX_RECV_BYTES:
            return


def _write(self, data: bytes) -> None:
    """pika's `write`; while a read is handled, or the ioloop's callbacks and timers run, only
    buffered: the read's end, or theirs, sends it."""
    if self._state == self._STATE_ACTIVE and data:
        if self._reading:
            self._buffer_tx_data(data)
            return
        deferred = getattr(self._nbio._loop, "deferred_writes", None)  # pika's IOLoop, patched below
        if deferred is not None:
            if not self._tx_buffers:  # else it is in the list already, or waits on a writability watch
                deferred.append(self)
            self._buffer_tx_data(data)
            return
    PIKAS_WRITE(self, data)


def _process_timeouts(self: IOLoop) -> None:
    """pika's callbacks and timers, then what they wrote leaves, a write per transport."""
    self.deferred_writes = deferred = []
    try:
        PIKAS_TIMEOUTS(self)
    finally:
        self.deferred_writes = None
        for tx in deferred:
            if tx._tx_buffers and tx._state == tx._STATE_ACTIVE:
                _send_or_watch(tx)


def _on_socket_readable(self) -> None:
    """pika's read handler; then what the read's handlers wrote leaves (see `_write`)."""
    self._reading = True
    try:
        PIKAS_READABLE(self)
    finally:
        self._reading = False
    if self._tx_buffers and self._state == self._STATE_ACTIVE:
        _send_or_watch(self)


def _send_or_watch(self) -> None:
    """Send what is buffered; watch for writability only if the socket did not take it all."""
    try:
        self._produce()
    except OSError as error:
        if error.errno not in _TRY_IO_AGAIN_SOCK_ERROR_CODES:
            self._initiate_abort(error)
            return
    if self._tx_buffers:
        self._nbio.set_writer(self._sock.fileno(), self._on_socket_writable)
    else:
        self._nbio.remove_writer(self._sock.fileno())


def install() -> None:
    """Idempotent: patch pika's base transport (plain and TLS transports inherit `_produce`) and its
    plain one's reads (TLS reads as it must: what the TLS layer holds is not on the socket)."""
    _AsyncTransportBase._produce = _coalescing_produce
    _AsyncPlaintextTransport._MAX_RECV_BYTES = RECV_BYTES
    _AsyncPlaintextTransport._reading = False  # True while its read handler runs
    _AsyncPlaintextTransport._consume = _consume_until_short
    _AsyncPlaintextTransport.write = _write
    _AsyncPlaintextTransport._on_socket_readable = _on_socket_readable
    IOLoop.deferred_writes = None  # a list while its callbacks and timers run (see `_write`)
    IOLoop.process_timeouts = _process_timeouts
