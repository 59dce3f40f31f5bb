"""The custom kinds this gateway serves: it has no bus identity of its own, so it asks an apiserver (as
the caller, whom discovery is open to) which CRDs are served, before discovery answers and when a path
names no kind it knows; a custom kind it serves is checked again once its answer is `FRESH_S` old."""
from __future__ import annotations

import time

from actors.gateway.calls import call
from api import customkinds
from runtime.client import Client

FRESH_S = 1.0
_asked = {"at": float("-inf")}


async def refresh(client: Client, max_age: float = 0.0) -> None:
    if time.monotonic() - _asked["at"] <= max_age:
        return
    reply = await call(client, "get", customkinds.SERVED)
    customkinds.sync(reply["object"].get("items") or [])
    _asked["at"] = time.monotonic()
