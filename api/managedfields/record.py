"""The store's bookkeeping of an Update, on the encoded entries: the common write — a manager changing
fields it already owns and no one else does — only moves its entry's time, found by walking the
`fieldsV1` trees for the few paths that changed (their texts decoded once and shared: api/managedfields/
raw.py), the entries' texts carried as they came; anything else decodes, updates and encodes the entries
(api/managedfields/managers.py)."""
from __future__ import annotations

from api.managedfields import managers, raw
from api.managedfields.managers import Entry, owned_changes
from api.managedfields.paths import Path


def recorded(old: dict | None, new: dict, shape, who: Entry) -> list[dict]:
    """`new`'s managedFields after `who` wrote it over `old` (None: a create); `new`'s own entries, if it
    brings any, else `old`'s, are the ones updated (a client that does not know the field keeps them)."""
    entries = (new.get("metadata") or {}).get("managedFields") or \
        (old or {}).get("metadata", {}).get("managedFields")
    entries = entries if isinstance(entries, list) else []
    if old is not None and entries:
        change = owned_changes(old, new, shape, who.subresource)
        if not change.changed and not change.removed:
            return entries
        quick = _only_time(entries, change.changed, change.removed, who)
        if quick is not None:
            return quick
    return managers.encode(managers.update(managers.decode({"metadata": {"managedFields": entries}}), old, new,
                                           shape, who))


def _only_time(entries: list[dict], changed: set, removed: set, who: Entry) -> list[dict] | None:
    """The entries with the writer's time moved, when that is all that changes; None otherwise."""
    key = who.key
    mine = [i for i, e in enumerate(entries) if _key(e) == key]
    if len(mine) != 1 or removed:
        return None
    for i, entry in enumerate(entries):
        tree = raw.unpack(entry.get("fieldsV1")) or {}
        if i == mine[0]:
            if not all(_member(tree, path) for path in changed):
                return None
        elif any(_member(tree, path) for path in changed):
            return None
    out = list(entries)
    out[mine[0]] = {**entries[mine[0]], "time": who.time}
    return out


def _key(entry: dict) -> tuple:
    operation = entry.get("operation", managers.UPDATE)
    return (entry.get("manager", ""), operation, entry.get("subresource") or "",
            entry.get("apiVersion", "") if operation == managers.UPDATE else "")


def _member(tree: dict, path: Path) -> bool:
    node = tree
    for element in path:
        node = node.get(element) if isinstance(node, dict) else None
        if node is None:
            return False
    return isinstance(node, dict) and (not node or "." in node)
