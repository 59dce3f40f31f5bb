"""One socket write per ioloop turn instead of one per AMQP frame.

pika queues every frame it marshals (a publish is three: method, header, body; an ack is one) as
its own buffer and `_produce` sends them one `send()` each. A store flush that replies, acks and
publishes a few hundred messages then costs a thousand syscalls here and as many TCP segments for
the broker to read. Joining what is queued before sending keeps the bytes and their order and
changes only how many writes carry them. `send_now` is the other way round: a stage that hands
on part of its turn (the apiserver's full command batch) writes it before the turn ends. Both reach
into pika's transport, so both live here.
"""
from __future__ import annotations

from pika.adapters.utils.io_services_utils import _AsyncTransportBase

_produce = _AsyncTransportBase._produce


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
        return  # the writability watcher is still set: pika meets the error on its own turn
    if not tx.get_write_buffer_size():  # pika asserts there is data when the socket is writable
        tx._nbio.remove_writer(tx._sock.fileno())


def install() -> None:
    """Idempotent: patch pika's base transport (plain and TLS transports inherit `_produce`)."""
    _AsyncTransportBase._produce = _coalescing_produce
