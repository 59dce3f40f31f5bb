"""One command against the state: the reply parts it produces — one, or, for lists and snapshots,
parts encoded lazily from the entries taken at the command's revision, so a big read can be
sent a slice at a time while the store goes on with other commands."""
from __future__ import annotations

from typing import Iterable, Iterator

from api import scope
from api.registry import lookup
from api.status import StatusError, bad_request
from bus import codec
from bus.messages import Request
from store.records import Entry
from store.state import State


Parts = list[bytes] | Iterator[bytes]
LAZY_OBJECTS = 5000  # a store this large builds big reads as it sends them


def execute(state: State, req: Request, chunk_bytes: int) -> Parts:
    """Encoded reply bodies for `req` (a list for everything but big reads); a StatusError becomes
    the `ok: false` reply."""
    try:
        return _dispatch(state, req, chunk_bytes)
    except StatusError as exc:
        return [failure(exc)]


def failure(exc: StatusError) -> bytes:
    return codec.encode({"ok": False, "status": exc.to_dict()})


def _dispatch(state: State, req: Request, chunk_bytes: int) -> Parts:
    verb, opts = req.verb, req.options
    scope.require_namespace(req.kind, verb, req.namespace)  # the store never takes a namespace from a body
    if req.guard is not None:
        _check_guard(state, req)
    if verb == "get":
        return [_one(state.get(req.kind, req.namespace, _name(req)))]
    if verb == "create":
        return [_one(state.create(req.kind, req.namespace, _placed(req), opts), req.warnings)]
    if verb in ("update", "updateStatus"):
        return [_one(state.update(req.kind, req.namespace, _placed(req), req.resourceVersion,
                                  status_only=verb == "updateStatus", options=opts), req.warnings)]
    if verb == "delete":
        return [_one(state.delete(req.kind, req.namespace, _name(req), opts), req.warnings)]
    if verb == "bind":
        return [_one(state.bind(req.namespace, _name(req), _object(req), opts.get("uid"), req.resourceVersion), req.warnings)]
    lazy = len(state.objects) >= LAZY_OBJECTS
    if verb == "list":
        return _chunks(state.list(req.kind, req.namespace, opts), state.rev, chunk_bytes, lazy)
    if verb == "snapshot":
        return _chunks(state.snapshot(opts["keys"]), state.rev, chunk_bytes, lazy)
    raise bad_request(f"the store does not take the verb {verb!r}")


def _check_guard(state: State, req: Request) -> None:
    """A node's command on a pod: only a pod bound to that node (the node authorizer's condition,
    checked here, where the stored pod is, so it cannot race with a binding)."""
    current = state.get(req.kind, req.namespace, _name(req)).obj
    if (current.get("spec") or {}).get("nodeName") != req.guard.nodeName:
        raise StatusError("Forbidden", req.guard.message, details={"name": req.name or "", "kind": "pods"})


def _one(entry: Entry, warnings: list[str] | None = None) -> bytes:
    """A one-object answer, with admission's warnings when there are any."""
    return codec.pack_map({"ok": True, "warnings": warnings} if warnings else {"ok": True}, {"object": entry.raw})


def _name(req: Request) -> str:
    if not req.name:
        raise bad_request(f"{req.verb} needs a name")
    return req.name


def _object(req: Request) -> dict:
    if not isinstance(req.object, dict):
        raise bad_request(f"{req.verb} needs an object")
    return req.object


def _placed(req: Request) -> dict:
    """The object where the request puts it (a guard was checked there, quotas are charged there)."""
    return scope.placed(lookup(req.kind), req.verb, req.namespace, req.name, _object(req))


def _chunks(entries: Iterable[Entry], rev: int, limit: int, lazy: bool) -> Parts:
    """List and snapshot replies: parts of at most `limit` bytes, all cut at `rev` (the entries were
    taken at it). Over a large store everything — matching, sorting, encoding — happens as the parts
    are sent, off the store's loop; else it is done now, and a one-part reply is a plain list."""
    if lazy:
        return _lazy_chunks(entries, rev, limit)
    groups = list(_split(entries, limit)) or [[]]
    if len(groups) == 1:
        return [_chunk(groups[0], rev, False)]
    return (_chunk(raws, rev, i < len(groups) - 1) for i, raws in enumerate(groups))


def _lazy_chunks(entries: Iterable[Entry], rev: int, limit: int) -> Iterator[bytes]:
    held = None
    for raws in _split(entries, limit):
        if held is not None:
            yield _chunk(held, rev, True)
        held = raws
    yield _chunk(held or [], rev, False)


def _chunk(raws: list[bytes], rev: int, more: bool) -> bytes:
    return codec.pack_map({"ok": True, "rev": rev, "more": more}, {"items": codec.pack_array(raws)})


def _split(entries: Iterable[Entry], limit: int) -> Iterator[list[bytes]]:
    raws: list[bytes] = []
    size = 0
    for entry in entries:
        if raws and size + len(entry.raw) > limit:
            yield raws
            raws, size = [], 0
        raws.append(entry.raw)
        size += len(entry.raw)
    if raws:
        yield raws
