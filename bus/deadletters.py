"""Reading `{c}.dead` without losing it, and sending one dead letter back where it came from.

Only the broker administrator reads `{c}.dead` (contract 5: people consume nothing shared), so
both calls take the administrator's URL. A peek takes messages with basic.get and rejects them with
requeue, on one channel: RabbitMQ puts them back in their places, and whatever happens to this
process (a crash, a dropped connection) the broker requeues what it still holds. Nothing is acked but
the one message `requeue` has republished, after the broker confirmed the republish.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterator
from urllib.parse import unquote, urlparse

import pika
import pika.exceptions as errors

from bus.dead import DEAD_EXCHANGE  # an older dead letter without it: the exchange is inferred from the key
from bus.topology import DEAD_REASON, Names
from config.urls import first, split

DEAD_ACTOR = "x-kubus-dead-actor"
DEAD_ROUTING_KEY = "x-kubus-dead-routing-key"
REQUEUED = "x-kubus-requeued"  # how many times `kubus dead-letters --requeue` sent this message back
BOOKKEEPING = ("x-kubus-dead-", "x-death", "x-first-death-", "x-last-death-")  # dropped on the way back


class DeadLettersError(Exception):
    """The broker refused, or the message is not there; the text says which and what to do."""


@dataclass(frozen=True)
class DeadLetter:
    """One message of `{c}.dead`: why it is there and where it came from."""

    id: str  # its message_id, or `body-` and a hash of the body when it has none
    when: float | None  # epoch seconds it was dead-lettered (the broker's x-death time, or the actor's publish)
    actor: str  # the actor that dead-lettered it, or `broker`
    reason: str
    exchange: str  # where `requeue` sends it ("" is the default exchange)
    routing_keys: tuple[str, ...]  # the first is its routing key, the rest went out as CC
    size: int
    user_id: str | None
    properties: Any  # pika.BasicProperties, to send it back as it was
    body: bytes


@dataclass(frozen=True)
class Requeued:
    letter: DeadLetter
    user_id: str | None  # the identity it was sent back with (None: the broker would not let us keep it)


def peek(admin_url: str, names: Names, limit: int) -> tuple[int, list[DeadLetter]]:
    """How many messages `{c}.dead` holds, and the oldest `limit` of them, all left in place."""
    with _channel(admin_url, names) as (_connection, channel):
        depth = channel.queue_declare(names.dead_queue, passive=True).method.message_count
        held = []  # one basic.get at least, even of an empty queue: it is what checks the read permission
        while len(held) < max(limit, 1) and (taken := _take(channel, names)) is not None:
            held.append(taken)
        if held:
            channel.basic_nack(held[-1][0], multiple=True, requeue=True)
        return depth, [letter for _tag, letter in held[:limit]]


def requeue(admin_url: str, names: Names, ident: str) -> Requeued:
    """Republish the oldest dead letter whose id is `ident` to its original exchange and routing key,
    then remove it from `{c}.dead`; every other message taken on the way goes back in its place."""
    with _channel(admin_url, names) as (connection, channel):
        held: list[int] = []
        while (taken := _take(channel, names)) is not None:
            tag, letter = taken
            if letter.id == ident:
                user = _republish(connection, letter)
                channel.basic_ack(tag)
                _give_back(channel, held)
                return Requeued(letter, user)
            held.append(tag)
        _give_back(channel, held)
    raise DeadLettersError(f"no message {ident!r} in {names.dead_queue} (`kubus dead-letters` lists their ids)")


def _give_back(channel, tags: list[int]) -> None:
    for tag in tags:
        channel.basic_reject(tag, requeue=True)


def _take(channel, names: Names) -> tuple[int, DeadLetter] | None:
    method, props, body = channel.basic_get(names.dead_queue, auto_ack=False)
    if method is None:
        return None
    return method.delivery_tag, _letter(names, method.routing_key, props, body)


def _letter(names: Names, routing_key: str, props, body: bytes) -> DeadLetter:
    headers = props.headers or {}
    death = _first_death(headers)
    if death is not None:  # the broker dead-lettered it: rejected, expired, or over a queue's length
        keys = tuple(str(k) for k in death.get("routing-keys") or ()) or (routing_key,)
        actor = "broker"
        reason = f"{headers.get('x-first-death-reason', death.get('reason'))} in " \
                 f"{headers.get('x-first-death-queue', death.get('queue'))}"
        exchange = str(headers.get("x-first-death-exchange", death.get("exchange", "")))
        when = _seconds(death.get("time")) or _seconds(props.timestamp)
    else:  # an actor published it with the reason
        keys = (str(headers.get(DEAD_ROUTING_KEY, routing_key)),)
        actor = str(headers.get(DEAD_ACTOR, props.app_id or "?"))
        reason = str(headers.get(DEAD_REASON, "?"))
        exchange = str(headers[DEAD_EXCHANGE]) if DEAD_EXCHANGE in headers else _exchange_of(names, keys[0])
        when = _seconds(props.timestamp)
    ident = props.message_id or "body-" + hashlib.blake2b(body, digest_size=6).hexdigest()
    return DeadLetter(ident, when, actor, reason, exchange, keys, len(body), props.user_id, props, body)


def _first_death(headers: dict) -> dict | None:
    """The x-death entry of the first dead-lettering (the list is newest first)."""
    deaths = [d for d in headers.get("x-death") or () if isinstance(d, dict)]
    if not deaths:
        return None
    first = (headers.get("x-first-death-queue"), headers.get("x-first-death-reason"))
    return next((d for d in deaths if (d.get("queue"), d.get("reason")) == first), deaths[-1])


def _exchange_of(names: Names, key: str) -> str:
    """Where a message an actor dead-lettered was published, told by its routing key (contract 1)."""
    if key in ("apiserver",) or key.startswith("logs."):
        return names.api
    if key == "store":
        return names.store
    if key.startswith(f"{names.cluster}."):  # a queue's name: it came through the default exchange
        return ""
    return names.events


def _seconds(value) -> float | None:
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _republish(connection, letter: DeadLetter) -> str | None:
    """Send `letter` back, confirmed and mandatory, as its original `user_id` when the broker lets the
    administrator keep it (the `impersonator` tag), else without one; the identity it went with."""
    for user in dict.fromkeys((letter.user_id, None)):
        channel = connection.channel()
        channel.confirm_delivery()
        try:
            channel.basic_publish(letter.exchange, letter.routing_keys[0], letter.body,
                                  _properties(letter, user), mandatory=True)
        except errors.ChannelClosedByBroker as exc:
            if exc.reply_code == 406 and user is not None:
                continue  # "user_id property set to … but authenticated user was …": no impersonation
            raise DeadLettersError(f"the broker refused the republish to {_where(letter)}: {exc.reply_text}") from None
        except errors.UnroutableError:
            raise DeadLettersError(f"nothing is bound to {_where(letter)}: the message stays dead") from None
        except errors.NackError:
            raise DeadLettersError(f"{_where(letter)} refused the message (full?): it stays dead") from None
        channel.close()
        return user
    raise AssertionError("unreachable: the last try publishes without a user_id")


def _where(letter: DeadLetter) -> str:
    return f"exchange {letter.exchange or '(default)'!r} key {letter.routing_keys[0]!r}"


def _properties(letter: DeadLetter, user: str | None):
    p = letter.properties
    headers = {k: v for k, v in (p.headers or {}).items() if not k.startswith(BOOKKEEPING)}
    headers[REQUEUED] = int(headers.get(REQUEUED) or 0) + 1
    if len(letter.routing_keys) > 1:
        headers["CC"] = list(letter.routing_keys[1:])
    return pika.BasicProperties(content_type=p.content_type, content_encoding=p.content_encoding, headers=headers,
                                delivery_mode=p.delivery_mode, priority=p.priority, correlation_id=p.correlation_id,
                                reply_to=p.reply_to, message_id=p.message_id, timestamp=p.timestamp, type=p.type,
                                user_id=user, app_id=p.app_id)


@contextmanager
def _channel(admin_url: str, names: Names) -> Iterator[tuple[Any, Any]]:
    """A connection as the administrator, named `cli dead-letters`; refusals as DeadLettersError."""
    url = urlparse(first(admin_url))
    who, where = unquote(url.username or "guest"), f"{url.hostname}:{url.port or 5672}"
    params = [pika.URLParameters(one) for one in split(admin_url)]
    for one in params:
        one.client_properties = {"connection_name": "cli dead-letters", "product": "kubus"}
    try:
        connection = pika.BlockingConnection(params)
    except (errors.ProbableAuthenticationError, errors.AuthenticationError, errors.ProbableAccessDeniedError):
        raise DeadLettersError(f"the broker at {where} refused the login of {who!r} (KUBUS_ADMIN_URL)") from None
    except errors.AMQPConnectionError as exc:
        raise DeadLettersError(f"no broker answers at {where}: {type(exc).__name__} {exc}") from None
    try:
        yield connection, connection.channel()
    except errors.ChannelClosedByBroker as exc:
        raise DeadLettersError(_refusal(exc, who, names)) from None
    finally:
        if connection.is_open:
            connection.close()


def _refusal(exc: errors.ChannelClosedByBroker, who: str, names: Names) -> str:
    if exc.reply_code == 403:
        return (f"{who!r} may not read {names.dead_queue}: only the broker administrator reads the dead queue "
                f"(set KUBUS_ADMIN_URL to the administrator's URL) — {exc.reply_text}")
    if exc.reply_code == 404:
        return f"no queue {names.dead_queue}: is cluster {names.cluster!r} bootstrapped (`kubus bootstrap`)?"
    return f"the broker closed the channel: {exc.reply_code} {exc.reply_text}"
