"""Field paths as structured-merge-diff names them: a path is a tuple of path elements, each already in its
`FieldsV1` spelling — `f:<field>`, `k:<json of the key fields>` (an item of a list keyed by fields),
`v:<json value>` (an item of a set), `i:<index>`. A set of paths is a Python set; `encode`/`decode` turn it
into the `fieldsV1` tree (`.` marks a path that is itself a member and has children) and back; `text`
spells a path as conflict messages do (`.spec.containers[name="app"].image`)."""
from __future__ import annotations

import json
from typing import Any

Path = tuple[str, ...]
FieldSet = set[Path]
_RANK = {"f": 0, "v": 1, "k": 2, "i": 3}  # fields first, then the items of lists (sorted within each)


def field(name: str) -> str:
    return f"f:{name}"


def key(item: dict, keys: tuple[str, ...]) -> str:
    return "k:" + _json({k: item[k] for k in sorted(keys) if k in item})


def value(item: Any) -> str:
    return "v:" + _json(item)


def _json(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def encode(paths: FieldSet) -> dict:
    """The `fieldsV1` tree of a set of paths."""
    root: dict = {}
    members: set[int] = set()
    for path in paths:
        node = root
        for element in path:
            node = node.setdefault(element, {})
        members.add(id(node))
    return _sorted(root, members)


def _sorted(node: dict, members: set[int]) -> dict:
    out: dict = {".": {}} if node and id(node) in members else {}
    for element in sorted(node, key=lambda e: (_RANK.get(e[0], 4), e)):
        out[element] = _sorted(node[element], members)
    return out


def decode(tree: Any) -> FieldSet:
    """The paths of a `fieldsV1` tree (what is not a tree of maps decodes to nothing)."""
    out: FieldSet = set()
    _decode(tree if isinstance(tree, dict) else {}, (), out)
    return out


def _decode(node: dict, path: Path, out: FieldSet) -> None:
    if not node and path:
        out.add(path)
    for element, child in node.items():
        if element == ".":
            out.add(path)
        elif isinstance(child, dict):
            _decode(child, path + (element,), out)


def text(path: Path) -> str:
    """A path as structured-merge-diff prints it: `.spec.replicas`, `[name="app"]`, `[=x]`, `[0]`."""
    parts = []
    for element in path:
        kind, rest = element[0], element[2:]
        if kind == "f":
            parts.append("." + rest)
        elif kind == "k":
            fields = json.loads(rest)
            parts.append("[" + ",".join(f"{k}={_json(v)}" for k, v in fields.items()) + "]")
        elif kind == "v":
            parts.append(f"[={rest}]")
        else:
            parts.append(f"[{rest}]")
    return "".join(parts)


def under(path: Path, prefixes: FieldSet) -> bool:
    """Whether `path` is one of `prefixes` or lies below one."""
    return any(path[:i] in prefixes for i in range(len(path) + 1))
