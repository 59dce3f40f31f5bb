"""What the gateway keeps for the people it serves: their clients (by token, `logins.py` says who is
behind one), their watch caches and their pages of lists."""
from __future__ import annotations

import asyncio
import time

from actors.gateway.logins import Logins
from actors.gateway.pages import Pages
from actors.gateway.watchcache import KindCache
from api.registry import KindInfo
from api.status import StatusError
from config.settings import Settings
from runtime.client import Client

CACHE_IDLE_S = 300.0  # a watch cache nobody watched or listed for this long is closed


class ClientPool:
    """Clients by token, and each client's synced watch caches."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.logins = Logins(settings, on_closed=self._forget)
        self._caches: dict[tuple[int, str, str | None], KindCache] = {}
        self.pages = Pages()

    async def client_for(self, authorization: str | None, source: str) -> Client:
        """The client of the token's person, from a client address; Unauthorized, or TooManyRequests
        while that address or user is held back."""
        return await self.logins.client_for(authorization, source)

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

    def covering(self, client: Client, info: KindInfo, namespace: str | None, since: int) -> KindCache | None:
        """The person's cache of the kind across namespaces, when a watch in `namespace` from `since`
        needs it: their cache of that namespace is new since (its window starts after `since`: a
        list across namespaces was their last read) and the wider one reaches back to `since`."""
        if not namespace or not info.namespaced:
            return None
        own = self._caches.get((id(client), info.kind, namespace))
        wide = self._caches.get((id(client), info.kind, None))
        if own is not None and not own.failed and own.synced.done() and own.horizon <= since:
            return None
        if wide is None or wide.failed or not wide.synced.done() or wide.horizon > since:
            return None
        wide.last_used = time.monotonic()
        return wide

    def _close_idle(self) -> None:
        now = time.monotonic()
        for key, cache in list(self._caches.items()):
            if not cache.watchers and now - cache.last_used > CACHE_IDLE_S:
                del self._caches[key]
                cache.close()

    def _forget(self, client: Client) -> None:
        """A client closed for good: its caches go (a later client could be given its id)."""
        for key in [key for key in self._caches if key[0] == id(client)]:
            self._caches.pop(key).close()

    def close(self) -> None:
        self.logins.close()
