"""`limit` and `continue`: the rest of a paged list is kept here for a while under a token, and
each page is served from it, so every page is cut at the list's revision as Kubernetes promises.
A token that expired is `410 Expired`, as kube-apiserver answers once etcd has compacted."""
from __future__ import annotations

import base64
import json
import secrets
import time

from api.status import StatusError, bad_request

KEEP_S = 300.0  # how long the rest of a paged list waits for its next page
MAX_KEPT = 1000


class Pages:
    """Kept per person (a token is no key to someone else's list)."""

    def __init__(self):
        self._rest: dict[tuple[object, str], tuple[float, list[dict], str]] = {}

    def first(self, owner: object, items: list[dict], rev: str, limit: int | None) -> tuple[list, str, dict | None]:
        return self._page(owner, items, rev, limit)

    def next(self, owner: object, token: str, limit: int | None) -> tuple[list[dict], str, dict | None]:
        try:
            key = json.loads(base64.urlsafe_b64decode(token.encode()))["k"]
        except (ValueError, KeyError, TypeError):
            raise bad_request("continue key is not valid: incorrect encoded start resourceVersion") from None
        self._expire()
        kept = self._rest.pop((owner, key), None)
        if kept is None:
            raise StatusError("Expired", "The provided continue parameter is too old to display a consistent "
                                         "list result. You can start a new list without the continue parameter.")
        _, items, rev = kept
        return self._page(owner, items, rev, limit)

    def _page(self, owner: object, items: list[dict], rev: str, limit: int | None) -> tuple[list, str, dict | None]:
        if limit is None or len(items) <= limit:
            return items, rev, None
        self._expire()
        if len(self._rest) >= MAX_KEPT:
            self._rest.pop(next(iter(self._rest)))
        key = secrets.token_urlsafe(12)
        self._rest[(owner, key)] = (time.monotonic() + KEEP_S, items[limit:], rev)
        token = base64.urlsafe_b64encode(json.dumps({"k": key, "rv": rev}).encode()).decode()
        return items[:limit], rev, {"continue": token, "remainingItemCount": len(items) - limit}

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, (until, _, _) in self._rest.items() if until < now]:
            del self._rest[key]
