"""JSON patch (RFC 6902, `application/json-patch+json`) as kube-apiserver applies it: with
gopkg.in/evanphx/json-patch.v4 v4.12.0, whose ways this follows — a negative index counts from the
end, `replace` of a missing object key adds it, `copy` from a missing key copies null, a path's
first segment is not checked to be empty — and whose messages it keeps
(`testing value /metadata/name failed: test failed`).

A body that is not a list of operations is a 400 BadRequest; an operation that does not apply
is a 422 Invalid (api/patch/errors), and the object is left as it was.

A patch is bounded as kube-apiserver bounds it (CVE-2019-1002100): at most 10,000 operations (413),
and what its `copy` operations add, counted as JSON before each copy is made, at most `copy_limit`
bytes — kubus's object limit, so `copy` of a list into itself cannot double it past the limit and
beyond (422, json-patch's words: `Unable to complete the copy, the accumulated size increase ...`).
"""
from __future__ import annotations

import copy
import json
import re
from typing import Any

from api.gojson import go_type, json_text
from api.managedfields import raw
from api.patch.errors import unprocessable
from api.status import StatusError, bad_request

MAX_OPERATIONS = 10000  # the apiserver's maxJSONPatchOperations
MAX_COPY_BYTES = 512 << 10  # the default object limit (settings.max_object_bytes)
MISSING = "missing value"
INVALID_INDEX = "invalid index referenced"
_ATOI = re.compile(r"[+-]?[0-9]+")
MANAGED = "/metadata/managedFields"


class _Failed(Exception):
    """An operation that does not apply, worded as json-patch words it."""


class _Copies:
    """What a patch's copies have added so far (json-patch's accumulatedCopySize), and its limit."""

    def __init__(self, limit: int):
        self.limit, self.total = limit, 0

    def charge(self, value: Any) -> None:
        self.total += len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode())
        if self.total > self.limit:
            raise _Failed(f"Unable to complete the copy, the accumulated size increase of copy is {self.total}, "
                          f"exceeding the limit {self.limit}")


def apply_json_patch(doc: Any, operations: Any, copy_limit: int = MAX_COPY_BYTES) -> Any:
    """`doc` with each operation applied in order (a copy; `doc` is left as it was)."""
    _check_body(operations)
    if any(_managed(op) for op in operations):  # the paths name the trees a client sees, not their text
        doc = raw.expanded(doc)
    result, copies = copy.deepcopy(doc), _Copies(copy_limit)
    try:
        for op in operations:
            result = _apply(result, op or {}, copies)
    except _Failed as exc:
        raise unprocessable(str(exc)) from None
    return result


def _managed(op: dict | None) -> bool:
    return any(isinstance(p, str) and p.startswith(MANAGED) for p in ((op or {}).get("path"), (op or {}).get("from")))


def _check_body(operations: Any) -> None:
    if not isinstance(operations, list):
        raise bad_request(f"json: cannot unmarshal {_json_kind(operations)} into Go value of type jsonpatch.Patch")
    for op in operations:
        if op is not None and not isinstance(op, dict):
            raise bad_request(f"json: cannot unmarshal {_json_kind(op)} into Go value of type jsonpatch.Operation")
    if len(operations) > MAX_OPERATIONS:
        raise StatusError("RequestEntityTooLarge", f"The allowed maximum operations in a JSON patch is "
                          f"{MAX_OPERATIONS}, got {len(operations)}")


def _json_kind(value: Any) -> str:
    return {"slice": "array", "float64": "number", "map": "object", "nil": "null"}.get(go_type(value), go_type(value))


def _apply(doc: Any, op: dict, copies: _Copies) -> Any:
    kind = op.get("op") if isinstance(op.get("op"), str) else "unknown"
    if kind == "copy":
        return _op_copy(doc, op, copies)
    handler = _OPERATIONS.get(kind)
    if handler is None:
        raise _Failed(f"Unexpected kind: {kind}")
    return handler(doc, op)


def _field(op: dict, name: str, missing: str) -> str:
    value = op.get(name)
    if value is None:
        raise _Failed(f"{missing}: {MISSING}")
    if not isinstance(value, str):
        raise _Failed(f"json: cannot unmarshal {_json_kind(value)} into Go value of type string")
    return value


def _path(op: dict, verb: str, keep_cause: bool = False) -> str:
    try:
        return _field(op, "path", "operation missing path field")
    except _Failed as exc:
        raise _Failed(f"{verb} operation failed to decode path: {exc if keep_cause else MISSING}") from None


def _from(op: dict, verb: str) -> str:
    try:
        return _field(op, "from", "operation, missing from field")
    except _Failed as exc:
        raise _Failed(f"{verb} operation failed to decode from: {exc}") from None


# ---- containers: an object or an array, addressed by one decoded segment -------------------------
def _atoi(token: str) -> int:
    if not _ATOI.fullmatch(token):
        raise _Failed(f'strconv.Atoi: parsing "{token}": invalid syntax')
    return int(token)


def _bad_index(index: int) -> _Failed:
    return _Failed(f"Unable to access invalid index: {index}: {INVALID_INDEX}")


def _position(items: list, token: str) -> int:
    """An existing item's index (a negative one counts from the end)."""
    index = _atoi(token)
    if index < -len(items) or index >= len(items):
        raise _bad_index(index)
    return index + len(items) if index < 0 else index


def _get(node: Any, token: str) -> Any:
    if isinstance(node, dict):
        return node.get(token)
    return node[_position(node, token)]


def _add(node: Any, token: str, value: Any) -> None:
    if isinstance(node, dict):
        node[token] = value
    elif token == "-":
        node.append(value)
    else:
        try:
            index = _atoi(token)
        except _Failed as exc:
            raise _Failed(f"value was not a proper array index: '{token}': {exc}") from None
        if index >= len(node) + 1 or index < -(len(node) + 1):
            raise _bad_index(index)
        node.insert(index + len(node) + 1 if index < 0 else index, value)


def _remove(node: Any, token: str) -> None:
    if isinstance(node, dict):
        if token not in node:
            raise _Failed(f"Unable to remove nonexistent key: {token}: {MISSING}")
        del node[token]
    else:
        del node[_position(node, token)]


def _find(doc: Any, path: str) -> tuple[Any, str] | None:
    """json-patch's `findObject`: the container of the path's last segment, and that segment."""
    segments = path.split("/")
    if len(segments) < 2:
        return None
    node = doc
    for segment in segments[1:-1]:
        try:
            node = _get(node, _decode(segment))
        except _Failed:
            return None
        if not isinstance(node, (dict, list)):
            return None
    return node, _decode(segments[-1])


def _decode(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def _located(doc: Any, path: str, message: str) -> tuple[Any, str]:
    found = _find(doc, path)
    if found is None:
        raise _Failed(f"{message}: {MISSING}")
    return found


def _wrapped(message: str, step, *args) -> Any:
    try:
        return step(*args)
    except _Failed as exc:
        raise _Failed(f"{message}: {exc}") from None


# ---- the six operations ------------------------------------------------------------------------
def _op_add(doc: Any, op: dict) -> Any:
    path = _path(op, "add")
    node, key = _located(doc, path, f'add operation does not apply: doc is missing path: "{path}"')
    _wrapped(f"error in add for path: '{path}'", _add, node, key, copy.deepcopy(op.get("value")))
    return doc


def _op_remove(doc: Any, op: dict) -> Any:
    path = _path(op, "remove")
    node, key = _located(doc, path, f'remove operation does not apply: doc is missing path: "{path}"')
    _wrapped(f"error in remove for path: '{path}'", _remove, node, key)
    return doc


def _op_replace(doc: Any, op: dict) -> Any:
    path = _path(op, "replace", keep_cause=True)
    value = copy.deepcopy(op.get("value"))
    if path == "":
        return value if isinstance(value, (dict, list)) else doc  # json-patch ignores a scalar here
    node, key = _located(doc, path, f"replace operation does not apply: doc is missing path: {path}")
    try:
        index = key if isinstance(node, dict) else _position(node, key)
    except _Failed:
        raise _Failed(f"replace operation does not apply: doc is missing key: {path}: {MISSING}") from None
    node[index] = value
    return doc


def _op_move(doc: Any, op: dict) -> Any:
    source = _from(op, "move")
    node, key = _located(doc, source, f"move operation does not apply: doc is missing from path: {source}")
    value = _wrapped(f"error in move for path: '{key}'", _get, node, key)
    _wrapped(f"error in move for path: '{key}'", _remove, node, key)
    path = _path(op, "move", keep_cause=True)
    node, key = _located(doc, path, f"move operation does not apply: doc is missing destination path: {path}")
    _wrapped(f"error in move for path: '{path}'", _add, node, key, value)
    return doc


def _op_copy(doc: Any, op: dict, copies: _Copies) -> Any:
    source = _from(op, "copy")
    node, key = _located(doc, source, f"copy operation does not apply: doc is missing from path: {source}")
    value = _wrapped(f"error in copy for from: '{source}'", _get, node, key)
    path = _path(op, "copy")
    node, key = _located(doc, path, f"copy operation does not apply: doc is missing destination path: {path}")
    copies.charge(value)
    _wrapped("error while adding value during copy", _add, node, key, copy.deepcopy(value))
    return doc


def _op_test(doc: Any, op: dict) -> Any:
    path = _path(op, "test", keep_cause=True)
    if path == "":
        actual = doc
    else:
        node, key = _located(doc, path, f"test operation does not apply: is missing path: {path}")
        actual = _wrapped(f"error in test for path: '{path}'", _get, node, key)
    if json_text(actual) != json_text(op.get("value")):
        raise _Failed(f"testing value {path} failed: test failed")
    return doc


_OPERATIONS = {"add": _op_add, "remove": _op_remove, "replace": _op_replace, "move": _op_move,
               "test": _op_test}  # and copy, which is charged for what it adds
