"""Request/reply over RabbitMQ's direct reply-to; replies may come in parts (`more: true`)."""
from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import structlog

from api.status import StatusError
from bus.ids import new_id, unguessable_id
from bus import codec
from bus.connection import Bus
from bus.message import Message
from bus.replyto import DIRECT
from config.answerers import Answerers

RETRYABLE = frozenset(("ServiceUnavailable", "TooManyRequests"))
RETRY_FIRST_S = 0.05
RETRY_MAX_S = 1.0
LOST_AFTER_SEND = ("the connection to the broker was lost after the request was sent; "
                   "the request may have been applied")
LOST_BEFORE_SEND = "the connection to the broker was lost before the request was sent"
QUEUE_FULL = "the request queue is full; try again later"
log = structlog.get_logger("bus.rpc")

Done = Callable[[dict[str, Any] | StatusError], None]


@dataclass
class _Call:
    done: Done
    timer: Any
    ttl: float  # the request expires in the queue when its caller stops waiting
    answerers: Answerers  # whose replies are believed (contract 2)
    items: list = field(default_factory=list)
    first: dict | None = None
    sent: bool = False  # published: a lost connection now leaves the outcome unknown


def retryable(reply: dict[str, Any] | StatusError) -> bool:
    """Congestion (a full queue, no apiserver yet) is tried again; a 429 that names its causes is a
    verdict on the request itself (an eviction a disruption budget refuses) and goes to the caller."""
    if isinstance(reply, StatusError):
        return reply.reason in RETRYABLE and not reply.causes
    status = reply.get("status") or {}
    return not reply.get("ok") and status.get("reason") in RETRYABLE and not (status.get("details") or {}).get("causes")


def unwrap(reply: dict[str, Any] | StatusError) -> dict[str, Any]:
    """The ok reply, or raise the StatusError it carries."""
    if isinstance(reply, StatusError):
        raise reply
    if not reply.get("ok"):
        raise _status(reply.get("status") or {})
    return reply


def _status(status: dict[str, Any]) -> StatusError:
    try:
        return StatusError.from_dict(status)
    except Exception as exc:  # a status of the wrong shape is the server's fault, not the caller's
        return StatusError("InternalError", f"malformed reply: status {type(exc).__name__}: {exc}")


def malformed(body: dict[str, Any]) -> str | None:
    """What is wrong with the shape of a reply body, or None."""
    if not isinstance(body.get("ok"), bool):
        return "`ok` is not a bool"
    if not body["ok"] and not isinstance(body.get("status"), dict):
        return "an error without a `status` map"
    if "items" in body and not isinstance(body["items"], list):
        return "`items` is not a list"
    if not isinstance(body.get("more", False), bool):
        return "`more` is not a bool"
    return None


class RpcClient:
    """Pending calls by correlation id; a reply, a timeout or a lost connection completes each once."""

    def __init__(self, bus: Bus, max_bytes: int, max_depth: int = codec.MAX_DEPTH):
        self.bus = bus
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.pending: dict[str, _Call] = {}
        self.ready = False
        self._waiting: list[Callable[[], None]] = []  # calls made before the reply consumer is up
        self._receiving: set[str] = set()  # calls whose reply is coming in parts
        self.streams: dict[str, tuple[Done, Answerers]] = {}  # open stream sessions: every reply is a frame

    def setup(self) -> None:
        """Start consuming replies; call after every (re)connect. Calls made meanwhile wait for it:
        a request must not reach the broker before its reply-to consumer does."""
        self.ready = False
        self.bus.consume_auto_ack(DIRECT, self._on_reply, on_ok=self._on_consuming)

    def _on_consuming(self) -> None:
        self.ready = True
        waiting, self._waiting = self._waiting, []
        for send in waiting:
            send()

    def call(self, exchange: str, routing_key: str, body: dict, done: Done, timeout: float, *,
             answerers: Answerers, message_id: str | None = None, persistent: bool = False,
             user_id: str | None = None, headers: dict | None = None, retry: bool = False) -> str:
        """Send one request; `done` gets the reply of one of `answerers` (`config.answerers`: a reply
        from any other broker user is dropped and logged), or a StatusError. With `retry`, an answer
        that says "try again" (the connection dropped after the request left, a full queue, no
        consumer) is retried with the same message id until the deadline: the store's dedupe by
        (user, id) makes that one effect, and a request lost with a broker restart is sent again."""
        message_id = message_id or new_id()
        if retry:
            done = self._retrying(exchange, routing_key, body, done, timeout, message_id=message_id,
                                  persistent=persistent, user_id=user_id, headers=headers, answerers=answerers)
        corr = self._pending(done, timeout, answerers)
        publish = dict(message_id=message_id, persistent=persistent, user_id=user_id, headers=headers)
        send = lambda: self._send(corr, exchange, routing_key, body, publish)  # noqa: E731
        if self.ready:
            send()
        else:
            self._waiting.append(send)
        return corr

    def expect(self, done: Done, timeout: float, answerers: Answerers) -> str:
        """A correlation id whose reply, timeout or lost connection goes to `done`, for a message this
        client's connection sends by other means naming `DIRECT` as its reply address (an apiserver's
        `commands` batch asking for its outcomes); `forget(corr)` if that message never leaves."""
        return self._pending(done, timeout, answerers, sent=True)

    def _pending(self, done: Done, timeout: float, answerers: Answerers, sent: bool = False) -> str:
        """A new call waiting under an unguessable correlation id, expiring after `timeout`."""
        corr = unguessable_id()
        self.pending[corr] = _Call(done, self.bus.call_later(timeout, lambda: self._expire(corr, timeout)), timeout,
                                   answerers, sent=sent)
        return corr

    def forget(self, corr: str) -> None:
        call = self.pending.pop(corr, None)
        if call is not None:
            self.bus.cancel(call.timer)

    def _send(self, corr: str, exchange: str, routing_key: str, body: dict, publish: dict[str, Any]) -> None:
        call = self.pending.get(corr)
        if call is None:
            return  # timed out while waiting for the connection
        call.sent = self.bus.publish(
            exchange, routing_key, body, type="request", correlation_id=corr, reply_to=DIRECT, mandatory=True,
            expiration_s=call.ttl, **publish,
            on_return=lambda why: self._fail(corr, "ServiceUnavailable", f"no consumer: {why}"),
            on_nack=lambda: self._fail(corr, "TooManyRequests", QUEUE_FULL))
        if not call.sent:
            self._fail(corr, "ServiceUnavailable", "not connected to the broker")

    def _retrying(self, exchange: str, routing_key: str, body: dict, done: Done, timeout: float, **kw: Any) -> Done:
        return _Retry(self, (exchange, routing_key, body), done, time.monotonic() + timeout, kw).answered

    def tell(self, exchange: str, routing_key: str, body: dict, *, ttl: float, user_id: str | None = None) -> None:
        """A request nobody waits for: no reply address, so no reply is sent (an Event, say)."""
        self.bus.publish(exchange, routing_key, body, type="request", message_id=new_id(), user_id=user_id,
                         expiration_s=ttl)

    def _expire(self, corr: str, timeout: float) -> None:
        self._fail(corr, "Timeout", f"the server was unable to return a response in the time allotted "
                                    f"({timeout:g}s), but may still be processing the request")

    def open_stream(self, exchange: str, routing_key: str, body: dict, on_frame: Done, *, answerers: Answerers,
                    user_id: str | None = None) -> str:
        """A request whose replies are many: each reply (of one of `answerers`) goes to `on_frame` until
        `close_stream`; a lost connection or unroutable request is one StatusError frame."""
        corr = unguessable_id()
        self.streams[corr] = (on_frame, answerers)
        lost = lambda why: self._end_stream(corr, StatusError("ServiceUnavailable", why))  # noqa: E731
        send = lambda: self.bus.publish(  # noqa: E731
            exchange, routing_key, body, type="request", correlation_id=corr, reply_to=DIRECT, mandatory=True,
            message_id=new_id(), user_id=user_id, on_return=lambda why: lost(f"no consumer: {why}"),
            on_nack=lambda: lost(QUEUE_FULL)) or lost("not connected to the broker")
        if self.ready:
            send()
        else:
            self._waiting.append(send)
        return corr

    def close_stream(self, corr: str) -> None:
        self.streams.pop(corr, None)

    def _end_stream(self, corr: str, error: StatusError) -> None:
        stream = self.streams.pop(corr, None)
        if stream is not None:
            stream[0](error)

    def _fail(self, corr: str, reason: str, message: str) -> None:
        call = self.pending.pop(corr, None)
        if call is not None:
            self._complete(corr, call, StatusError(reason, message))

    def _hold_collector(self, corr: str) -> None:
        """No cyclic collections while a reply comes in parts: each would rescan every item received
        so far (2.2 s of a 4.9 s snapshot of 100,000 pods)."""
        if not self._receiving:
            gc.disable()
        self._receiving.add(corr)

    def _complete(self, corr: str, call: _Call, result: dict[str, Any] | StatusError) -> None:
        """Hand the caller its answer; a callback that raises is logged and never reaches the ioloop.
        The collector stays paused through the callback of a reply that came in parts, so a cache
        that loads it (and freezes it: `runtime.heap`) is not scanned while it does."""
        self.bus.cancel(call.timer)
        try:
            call.done(result)
        except Exception:
            log.exception("rpc.callback_failed", correlation_id=corr)
        finally:
            self._release_collector(corr)

    def _release_collector(self, corr: str) -> None:
        if corr in self._receiving:
            self._receiving.discard(corr)
            if not self._receiving:
                gc.enable()

    def fail_all(self, reason: str = "ServiceUnavailable", message: str | None = None) -> None:
        """The connection dropped: every pending call fails; one already sent says its outcome is unknown
        (the Client retries it with the same message id)."""
        self.ready = False
        self._waiting.clear()
        for corr in list(self.streams):
            self._end_stream(corr, StatusError(reason, message or LOST_AFTER_SEND))
        for corr, call in list(self.pending.items()):
            self._fail(corr, reason, message or (LOST_AFTER_SEND if call.sent else LOST_BEFORE_SEND))

    def _on_reply(self, msg: Message) -> None:
        corr = msg.correlation_id or ""
        if corr in self.streams:
            self._on_frame(corr, msg)
            return
        call = self.pending.get(corr)
        if call is None:
            return  # a late reply to a call that timed out
        if msg.user_id not in call.answerers:
            log.warning("rpc.reply_refused", correlation_id=corr, user=msg.user_id,
                        why="a reply is believed only from the responder the call was sent to")
            return
        try:
            body = codec.decode(msg.raw, msg.headers, self.max_bytes, self.max_depth + codec.ENVELOPE_LEVELS)
            self._take_reply(corr, call, body)
        except codec.DecodeError as exc:
            self._fail(corr, "InternalError", f"malformed reply: {exc}")
        except Exception as exc:  # never let one reply take the connection down
            log.exception("rpc.reply_failed", correlation_id=corr)
            self._fail(corr, "InternalError", f"malformed reply: {type(exc).__name__}: {exc}")

    def _on_frame(self, corr: str, msg: Message) -> None:
        on_frame, answerers = self.streams[corr]
        if msg.user_id not in answerers:
            log.warning("rpc.frame_refused", correlation_id=corr, user=msg.user_id)
            return
        try:
            on_frame(codec.decode(msg.raw, msg.headers, self.max_bytes, self.max_depth, binary=True))
        except codec.DecodeError as exc:
            self._end_stream(corr, StatusError("InternalError", f"malformed frame: {exc}"))
        except Exception:
            log.exception("rpc.frame_failed", correlation_id=corr)

    def _take_reply(self, corr: str, call: _Call, body: dict[str, Any]) -> None:
        wrong = malformed(body)
        if wrong:
            self._fail(corr, "InternalError", f"malformed reply: {wrong}")
            return
        call.items.extend(body.get("items", ()))
        if call.first is None:
            call.first = body
        if body.get("more"):
            self._hold_collector(corr)
            return
        del self.pending[corr]
        result = {**call.first, "more": False}
        if "items" in body:
            result["items"] = call.items
        self._complete(corr, call, result)


@dataclass
class _Retry:
    """One request sent again, with the same message id, while its answer says "try again" and the
    deadline allows. An object rather than two closures calling each other: that cycle left every
    request's callbacks to the cyclic collector."""
    client: RpcClient
    request: tuple[str, str, dict]  # exchange, routing key, body
    done: Done
    deadline: float
    kw: dict[str, Any]
    backoff: float = RETRY_FIRST_S

    def answered(self, reply: dict[str, Any] | StatusError) -> None:
        if retryable(reply) and time.monotonic() + self.backoff < self.deadline:
            self.client.bus.call_later(self.backoff * random.uniform(0.5, 1.0), self.again)
            self.backoff = min(self.backoff * 2, RETRY_MAX_S)
        else:
            self.done(reply)

    def again(self) -> None:
        self.client.call(*self.request, self.answered, max(0.001, self.deadline - time.monotonic()), **self.kw)
