"""One bus `Client` per bearer token: the token is the person's broker credential
`<broker user>:<password>`, so the broker checks the password and the apiserver applies RBAC to
the user it validated. The gateway itself holds no identity of its own."""
from __future__ import annotations

import asyncio
import hashlib
import threading
import time

from actors.gateway.pages import Pages
from actors.gateway.watchcache import KindCache
from api.registry import KindInfo
from api.status import StatusError
from bus.connection import Bus
from config.credentials import url_as
from config.settings import Settings
from runtime.client import Client

LOGIN_TIMEOUT_S = 3.0  # a wrong password never connects: the broker refuses every attempt
REFUSED_FOR_S = 10.0  # a refused token is answered 401 at once for this long (kubectl asks several times)
CACHE_IDLE_S = 300.0  # a watch cache nobody watched or listed for this long is closed


def unauthorized() -> StatusError:
    return StatusError("Unauthorized", "Unauthorized")


def credentials(authorization: str | None) -> tuple[str, str]:
    """(user, password) from `Authorization: Bearer user:password`; Unauthorized otherwise."""
    scheme, _, token = (authorization or "").partition(" ")
    user, sep, password = token.strip().partition(":")
    if scheme.lower() != "bearer" or not sep or not user or not password:
        raise unauthorized()
    return user, password


class ClientPool:
    """Connected clients by token (keyed by its hash); made off the event loop, once per token."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._clients: dict[str, asyncio.Future] = {}
        self._refused: dict[str, float] = {}  # token hash -> when its refusal expires (monotonic)
        self._caches: dict[tuple[int, str, str | None], KindCache] = {}
        self.pages = Pages()

    async def client_for(self, authorization: str | None) -> Client:
        user, password = credentials(authorization)
        key = hashlib.sha256(f"{user}:{password}".encode()).hexdigest()
        if self._refused.get(key, 0.0) > time.monotonic():
            raise unauthorized()
        if key not in self._clients:
            loop = asyncio.get_running_loop()
            self._clients[key] = loop.run_in_executor(None, self._connect, user, password)
        try:
            return await asyncio.shield(self._clients[key])
        except StatusError:
            self._clients.pop(key, None)  # after a while, the password may have been made since
            self._refused = {k: t for k, t in self._refused.items() if t > time.monotonic()}
            self._refused[key] = time.monotonic() + REFUSED_FOR_S
            raise

    def _connect(self, user: str, password: str) -> Client:
        """Blocking: log in once with a short deadline (a refused login is retried by `Bus` until
        its deadline), then the client that serves this token."""
        settings = self.settings.with_(amqp_url=url_as(self.settings.amqp_url, user, password))
        probe = Bus(settings.amqp_url, f"gateway login {user}", "kubus-gateway", lambda _bus: None)
        try:
            probe.start_thread(LOGIN_TIMEOUT_S)
        except ConnectionError:
            raise unauthorized() from None
        probe.stop()
        probe.join(2)
        return Client(settings, name=f"gateway {user}", on_warning=lambda _text: None)

    async def cache_for(self, client: Client, info: KindInfo, namespace: str | None) -> KindCache:
        """The person's synced watch cache of a kind (in a namespace, or all); Forbidden when RBAC does
        not let them watch it. Idle caches are closed as a new one is made."""
        self._close_idle()
        key = (id(client), info.kind, namespace if info.namespaced else None)
        cache = self._caches.get(key)
        if cache is None or cache.failed:
            cache = self._caches[key] = KindCache(client, info, key[2], asyncio.get_running_loop(),
                                                  self.settings.gateway_watch_window)
        try:
            await cache.ready()
        except (StatusError, asyncio.TimeoutError) as exc:
            self._caches.pop(key, None)
            cache.close()
            if isinstance(exc, StatusError):
                raise
            raise StatusError("Timeout", f"the watch of {info.resource} did not start in time") from None
        return cache

    def _close_idle(self) -> None:
        now = time.monotonic()
        for key, cache in list(self._caches.items()):
            if not cache.watchers and now - cache.last_used > CACHE_IDLE_S:
                del self._caches[key]
                cache.close()

    def close(self) -> None:
        for future in self._clients.values():
            if future.done() and not future.cancelled() and future.exception() is None:
                threading.Thread(target=future.result().close, daemon=True).start()
        self._clients.clear()
