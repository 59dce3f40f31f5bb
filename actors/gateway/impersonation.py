"""`kubectl --as`, `--as-group`, `--as-uid`: Kubernetes' `Impersonate-*` headers, read into the
request's `impersonate` field and carried to the apiserver, which decides whether the caller may (the
gateway is trusted with no more than the caller's own rights). A header starting with `Impersonate-`
that is none of Kubernetes' is refused, never dropped: a request is not run as the caller when it
asked to run as someone else."""
from __future__ import annotations

from concurrent.futures import Future
from typing import Any
from urllib.parse import unquote

from multidict import CIMultiDictProxy

from api.status import StatusError, bad_request
from runtime.client import Client

PREFIX, EXTRA = "impersonate-", "impersonate-extra-"
USER, GROUP, UID = "impersonate-user", "impersonate-group", "impersonate-uid"


def requested(headers: CIMultiDictProxy[str]) -> dict | None:
    """The impersonation the headers ask for (user, groups, uid, extra), None when they ask none."""
    asked: dict[str, Any] = {"groups": [], "extra": {}}
    for name, value in headers.items():
        low = name.lower()
        if not low.startswith(PREFIX):
            continue
        if low == USER:
            asked["user"] = asked.get("user") or value  # the first, as Go's Header.Get
        elif low == GROUP:
            asked["groups"].append(value)
        elif low == UID:
            asked["uid"] = asked.get("uid") or value
        elif low.startswith(EXTRA) and len(low) > len(EXTRA):
            asked["extra"].setdefault(unquote(low[len(EXTRA):]), []).append(value)
        else:
            raise bad_request(f"the header {name} is not one of Kubernetes' impersonation headers "
                              f"(Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-<key>)")
    asked = {k: v for k, v in asked.items() if v}  # an empty header asks nothing, as in Kubernetes
    return asked or None


class Impersonating:
    """The caller's client, every request of it carrying the impersonation. Watches are the caller's
    own queues, so none is made through it."""

    def __init__(self, client: Client, impersonate: dict):
        self.client, self.impersonate = client, impersonate
        self.owner = (id(client), repr(sorted(impersonate.items())))  # whose pages of lists these are

    def request_async(self, verb: str, kind: str, **kw: Any) -> Future:
        return self.client.request_async(verb, kind, impersonate=self.impersonate, **kw)

    def watch(self, *_args, **_kw):
        raise unsupported_watch()


def unsupported_watch() -> StatusError:
    return bad_request("kubus does not serve a watch while impersonating (Impersonate-* headers): "
                       "watch as yourself, or list")


def acting(client: Client, headers: CIMultiDictProxy[str]) -> Client | Impersonating:
    """The client to serve the request with: the caller's, or the caller's impersonating."""
    asked = requested(headers)
    return client if asked is None else Impersonating(client, asked)


def owner(client: Client | Impersonating) -> object:
    """Whose kept pages a list's are: the caller's, apart from the caller impersonating someone."""
    return client.owner if isinstance(client, Impersonating) else id(client)
