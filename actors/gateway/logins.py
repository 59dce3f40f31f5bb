"""Who is behind a bearer token. The token is the person's broker credential `<user>:<password>`: the
broker checks it (`bus.login`, on the event loop: no thread held, no pool a flood could fill), then the
gateway talks to the bus as that person through one `Client` per token.

A login is trusted for `gateway_login_ttl_s` (a minute at most: Kubernetes authenticates every
request), and while its client stays connected; after that the next request checks it again, so a
changed or removed password stops working; a refusal is remembered for `gateway_refused_ttl_s`. A token not trusted yet is throttled per
client address and per user: over the limit it is answered 429 TooManyRequests with Retry-After, and
the broker is not asked. A trusted token costs a hash and a lookup.

A bound ServiceAccount token (a JWT: boundtokens.py) logs in as its account's broker user, and is
trusted only once the apiserver's TokenReview says its account and pod still exist, and never past its
expiry."""
from __future__ import annotations

import asyncio
import hashlib
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable

import structlog

from actors.gateway.boundtokens import Bound, BoundTokens
from actors.gateway.throttle import Throttle
from api.status import StatusError
from bus.login import may_log_in
from config import satokens
from config.identities import role_of
from config.credentials import url_as
from config.settings import Settings
from runtime.client import Client

log = structlog.get_logger()
MAX_USER_KEY = 256  # characters of a user name the throttle keeps (a person's broker user is shorter)


def unauthorized() -> StatusError:
    return StatusError("Unauthorized", "Unauthorized")


def too_many_requests(wait_s: float) -> StatusError:
    """apimachinery's NewTooManyRequests; the response carries `Retry-After` from its details."""
    return StatusError("TooManyRequests", "Too many requests, please try again later.",
                       details={"retryAfterSeconds": max(1, math.ceil(wait_s))})


def credentials(authorization: str | None) -> tuple[str, str]:
    """(user, password) from `Authorization: Bearer user:password`; Unauthorized otherwise."""
    scheme, _, token = (authorization or "").partition(" ")
    user, sep, password = token.strip().partition(":")
    if scheme.lower() != "bearer" or not sep or not user or not password:
        raise unauthorized()
    return user, password


@dataclass
class _Login:
    client: Client
    until: float = 0.0  # trusted until then (the clock's time)


class Logins:
    """Trusted logins by token (keyed by its hash), refusals, and the checks in flight."""

    def __init__(self, settings: Settings, on_closed: Callable[[Client], None] = lambda _client: None,
                 clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self.on_closed = on_closed  # a client closed for its token's refusal: what was kept for it goes too
        self.clock = clock
        self._trusted: dict[str, _Login] = {}
        self._refused: dict[str, float] = {}  # token hash -> when its refusal expires
        self._checks: dict[str, asyncio.Future] = {}  # one per token, shared by its requests
        backoff = (settings.gateway_backoff_s, settings.gateway_backoff_max_s)
        self.sources = Throttle(settings.gateway_source_failures, *backoff, clock=clock)
        self.users = Throttle(settings.gateway_user_failures, *backoff, clock=clock)
        self.bound = BoundTokens(settings)

    async def client_for(self, authorization: str | None, source: str) -> Client:
        scheme, _, token = (authorization or "").partition(" ")
        bound = self.bound.parse(token.strip()) \
            if scheme.lower() == "bearer" and satokens.looks_like_jwt(token.strip()) else None
        user, password = (bound.user, bound.password) if bound else credentials(authorization)
        if bound is None and (role_of(self.settings.cluster, user) or ("",))[0] == "sa":
            raise unauthorized()  # an account's broker credential is its pods' bus identity, not a bearer token
        key = hashlib.sha256((bound.token if bound else f"{user}:{password}").encode()).hexdigest()
        login = self._trusted.get(key)
        if login is not None and login.until > self.clock() and login.client.bus.ready.is_set():
            return login.client  # (a client that lost its connection may have lost it to its user's removal)
        if self._refused.get(key, 0.0) > self.clock():
            raise unauthorized()
        check = self._checks.get(key)
        if check is None:
            held = None if login is not None else self._admit(source, user)  # a renewal is no guess
            check = self._checks[key] = asyncio.ensure_future(self._check(key, user, password, login, held, bound))
            check.add_done_callback(lambda done: self._checked(key, done))
        return await asyncio.shield(check)

    def _checked(self, key: str, done: asyncio.Future) -> None:
        self._checks.pop(key, None)
        if not done.cancelled():
            done.exception()  # its requests had it; none left waiting is no "never retrieved" noise

    def _admit(self, source: str, user: str) -> tuple[str, str]:
        """A new token's keys in the throttles, its attempt counted; TooManyRequests while either waits."""
        held = (source, user[:MAX_USER_KEY])  # a name the broker has no user for is a key too: bounded
        wait = max(self.sources.wait(held[0]), self.users.wait(held[1]))
        if wait > 0:
            raise too_many_requests(wait)
        self.sources.begin(held[0])
        self.users.begin(held[1])
        return held

    async def _check(self, key: str, user: str, password: str, login: _Login | None,
                     held: tuple[str, str] | None, bound: Bound | None = None) -> Client:
        url = url_as(self.settings.amqp_url, user, password)
        ok = None
        try:
            ok = await self._ask(url, user)
        finally:
            if held is not None:
                self.sources.done(held[0], ok)
                self.users.done(held[1], ok)
        if ok is None:
            raise StatusError("ServiceUnavailable", "the broker did not answer the login; try again")
        if not ok:
            self._refuse(key)
            raise unauthorized()
        if login is None:
            login = _Login(await self._connect(url, user))
        ttl = self.settings.gateway_login_ttl_s
        if bound is not None:
            if not await self.bound.reviewed(login.client, bound):  # its pod or account is gone
                self._trusted[key] = login
                self._refuse(key)
                raise unauthorized()
            ttl = min(ttl, bound.expires - time.time())
        login.until = self.clock() + ttl
        self._trusted[key] = login
        return login.client

    async def _ask(self, url: str, user: str) -> bool | None:
        """The broker's word on a login; None when no node answered."""
        try:
            return await may_log_in(url, self.settings.gateway_login_timeout_s, f"gateway login {user}")
        except ConnectionError as exc:
            log.warning("gateway.login_unanswered", user=user, error=str(exc))
            return None

    async def _connect(self, url: str, user: str) -> Client:
        """The client that serves a token just logged in (its connection is made on a thread)."""
        settings = self.settings.with_(amqp_url=url)
        try:
            return await asyncio.get_running_loop().run_in_executor(
                None, lambda: Client(settings, name=f"gateway {user}", on_warning=lambda _text: None))
        except ConnectionError:
            raise StatusError("ServiceUnavailable", "the broker did not answer the login; try again") from None

    def _refuse(self, key: str) -> None:
        now = self.clock()
        self._refused = {k: until for k, until in self._refused.items() if until > now}
        self._refused[key] = now + self.settings.gateway_refused_ttl_s
        login = self._trusted.pop(key, None)
        if login is not None:  # its password changed or its user went: what it opened closes
            self.on_closed(login.client)
            _close(login.client)

    def close(self) -> None:
        for login in self._trusted.values():
            _close(login.client)
        self._trusted.clear()


def _close(client: Client) -> None:
    threading.Thread(target=client.close, daemon=True).start()  # a close waits for its bus thread
