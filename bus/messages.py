"""Bodies of requests, commands, events and bookmarks (contract 2), validated strictly."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bus.codec import DecodeError

VERBS = ("create", "get", "list", "update", "updateStatus", "patch", "delete", "bind", "snapshot", "logs")
WRITES = frozenset(("create", "update", "updateStatus", "patch", "delete", "bind"))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Request(_Strict):
    verb: Literal["create", "get", "list", "update", "updateStatus", "patch", "delete", "bind", "snapshot", "logs"]
    kind: str = Field(min_length=1, max_length=64)
    namespace: str | None = None
    name: str | None = None
    object: dict[str, Any] | None = None
    resourceVersion: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class Event(_Strict):
    type: Literal["ADDED", "MODIFIED", "DELETED"]
    kind: str
    rev: int = Field(ge=1)
    prev: int = Field(ge=0)
    from_: str | None = Field(None, alias="from")
    object: dict[str, Any]


class Bookmark(_Strict):
    type: Literal["BOOKMARK"]
    kind: str
    shard: str
    rev: int = Field(ge=0)
    count: int = Field(ge=0)
    digest: int = Field(ge=0)


def parse_request(body: dict[str, Any]) -> Request:
    try:
        return Request.model_validate(body)
    except ValidationError as exc:
        raise DecodeError("invalid", _first(exc)) from None


def parse_event(body: dict[str, Any]) -> Event | Bookmark:
    try:
        if body.get("type") == "BOOKMARK":
            return Bookmark.model_validate(body)
        return Event.model_validate(body)
    except ValidationError as exc:
        raise DecodeError("invalid", _first(exc)) from None


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
