"""The `managedFields` entries of an object and the two operations that change them (apimachinery's
managedfields: `FieldManager.Update` and `.Apply`, structured-merge-diff's `Updater`).

An Update (create, update, patch, a status write) gives its manager the fields it changed and takes them
from everyone else; an Apply owns exactly the fields its configuration sets, removes those it owned before
and no longer sets (unless another manager owns them), and fails with a 409 when it would change a field
another manager owns, unless forced — then it takes them. Entries are one per manager, operation,
subresource (and API version, for Updates), Apply entries first, then by time."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from api.managedfields import paths, raw
from api.managedfields.fieldset import Comparison, compare, compare_maps, of
from api.managedfields.merge import merge, remove
from api.managedfields.paths import FieldSet
from api.managedfields.shape import Shape
from api.status import Cause, StatusError

APPLY, UPDATE = "Apply", "Update"
# what is never owned (apimachinery's stripMetaManager): the server's fields, and the maps that hold them
STRIPPED_META = ("name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields",
                 "resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds")
MAX_MANAGER = 128


@dataclass(frozen=True)
class Entry:
    manager: str
    operation: str
    api_version: str
    time: str
    fields: frozenset
    subresource: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Who the entry is (apimachinery's BuildManagerIdentifier: time never, the version only for Updates)."""
        return self.manager, self.operation, self.subresource, self.api_version if self.operation == UPDATE else ""

    def printed(self) -> str:
        """As conflict messages name it: `"kubectl" with subresource "status" using apps/v1`."""
        text = f'"{self.manager}"' + (f' with subresource "{self.subresource}"' if self.subresource else "")
        return f"{text} using {self.api_version}" if self.operation == UPDATE else text


def decode(obj: dict) -> list[Entry]:
    out = []
    for item in (obj.get("metadata") or {}).get("managedFields") or ():
        if isinstance(item, dict) and item.get("fieldsType", "FieldsV1") == "FieldsV1":
            out.append(Entry(str(item.get("manager", "")), str(item.get("operation", UPDATE)),
                             str(item.get("apiVersion", "")), str(item.get("time", "")),
                             frozenset(paths.decode(raw.unpack(item.get("fieldsV1")))),
                             str(item.get("subresource") or "")))
    return out


def encode(entries: list[Entry]) -> list[dict]:
    ordered = sorted(entries, key=lambda e: (e.operation, e.time, e.manager, e.api_version, e.subresource))
    return [{"manager": e.manager, "operation": e.operation, "apiVersion": e.api_version, "time": e.time,
             "fieldsType": "FieldsV1", "fieldsV1": raw.pack(paths.encode(set(e.fields))),
             **({"subresource": e.subresource} if e.subresource else {})} for e in ordered]


_NOT_OWNED = frozenset(("apiVersion", "kind", "status"))
_INNER = {"metadata": frozenset(STRIPPED_META)}


def owned_changes(old: Any, new: Any, shape, subresource: str = "") -> Comparison:
    """`compare` of the two objects' owned parts (below); the common write's, two objects with their
    metadata, compared in place."""
    if not subresource and isinstance(old, dict) and isinstance(new, dict) and \
            isinstance(old.get("metadata"), dict) and isinstance(new.get("metadata"), dict):
        return compare_maps(old, new, shape, _NOT_OWNED, _INNER)
    return compare(owned_part(old, subresource), owned_part(new, subresource), shape)


def owned_part(obj: Any, subresource: str = "") -> dict:
    """What of an object can be owned: its status through /status; otherwise all but status and the
    server's metadata (Kubernetes' reset fields and stripped fields)."""
    if not isinstance(obj, dict):
        return {}
    if subresource:
        return {"status": obj["status"]} if "status" in obj else {}
    out = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "status")}
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = {k: v for k, v in out["metadata"].items() if k not in STRIPPED_META}
    return out


def _without_meta_node(fields: FieldSet) -> FieldSet:
    fields.discard((paths.field("metadata"),))
    return fields


def update(entries: list[Entry], old: dict | None, new: dict, shape, who: Entry) -> list[Entry]:
    """The entries after `who` (its fields unused) wrote `new` over `old` (None: a create)."""
    base = old if old is not None else _zero(new, shape)
    change = owned_changes(base, new, shape, who.subresource)
    changed = _without_meta_node(change.changed)
    if not changed and not change.removed:
        return entries
    lost = changed | change.removed
    out, mine = [], None
    for entry in entries:
        if entry.key == who.key:
            mine = entry
            continue
        kept = entry.fields - lost if entry.fields & lost else entry.fields
        if kept:
            out.append(entry if kept is entry.fields else replace(entry, fields=kept))
    before = mine.fields - change.removed if mine else frozenset()
    if changed:  # the writer's entry takes what it changed, and the time it did
        out.append(replace(who, fields=before | changed))
    elif before:  # it only removed fields: its entry keeps its time
        out.append(replace(mine, fields=before))
    return out


def _zero(new: dict, shape) -> dict:
    """What a create is compared with: Kubernetes' empty object of the kind, whose metadata and spec
    structs are there and empty (a custom object's empty object has nothing)."""
    return {k: {} for k in ("metadata", "spec") if isinstance(new.get(k), dict)} if isinstance(shape, Shape) else {}


def apply(entries: list[Entry], live: dict, config: dict, shape, who: Entry, force: bool) -> tuple[dict, list[Entry]]:
    """The object and entries after `who` applied `config` to `live`; a 409 naming each conflict."""
    if not entries and live:  # an object written before anyone kept its fields: all of them were someone's
        entries = [Entry("before-first-apply", UPDATE, who.api_version, who.time,
                         frozenset(_without_meta_node(of(owned_part(live), shape))))]
    applied = frozenset(_without_meta_node(of(owned_part(config, who.subresource), shape)))
    last = next((e.fields for e in entries if e.key == who.key), frozenset())
    others = [e for e in entries if e.key != who.key]
    merged = merge(live, owned_part(config, who.subresource), shape)
    merged = remove(merged, _dropped(last - applied, others, applied), shape)
    change = compare(owned_part(live, who.subresource), owned_part(merged, who.subresource), shape)
    conflicts = {e.key: e.fields & change.changed for e in others if e.fields & change.changed}
    if conflicts and not force:
        raise conflict_error([(e, path) for e in others for path in sorted(conflicts.get(e.key, ()))])
    out = []
    for entry in others:
        kept = entry.fields - conflicts.get(entry.key, frozenset()) - change.removed
        if kept:
            out.append(replace(entry, fields=frozenset(kept)))
    return merged, out + [replace(who, fields=applied)] if applied else out


def _dropped(candidates: frozenset, others: list[Entry], applied: frozenset) -> FieldSet:
    """What the applier stops owning that no one else owns, at or below it."""
    owned = set(applied).union(*(e.fields for e in others))
    held = {path[:i] for path in owned for i in range(1, len(path) + 1)}
    return {path for path in candidates if path not in held}


def conflict_error(conflicts: list[tuple[Entry, tuple]]) -> StatusError:
    """apimachinery's NewConflictError: one cause per field, the message listing them by manager."""
    causes = [Cause(paths.text(path), f"conflict with {entry.printed()}", "FieldManagerConflict")
              for entry, path in conflicts]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        return StatusError("Conflict", f"Apply failed with 1 conflict: conflict with {entry.printed()}: "
                                       f"{paths.text(path)}", causes)
    lines = []
    for printed in sorted({entry.printed() for entry, _ in conflicts}):
        lines.append(f"conflicts with {printed}:")
        lines += [f"- {paths.text(path)}" for entry, path in conflicts if entry.printed() == printed]
    return StatusError("Conflict", f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines), causes)


def manager_of(field_manager: str | None, user_agent: str) -> str:
    """The `fieldManager` asked for, else the user agent up to its first `/` (apimachinery's
    prefixFromUserAgent)."""
    return field_manager or (user_agent or "").split("/")[0]


def check_manager(field_manager: str | None, apply_patch: bool) -> None:
    if apply_patch and not field_manager:
        raise StatusError("Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                                     "is required for apply patch",
                          [Cause("fieldManager", "Required value: is required for apply patch",
                                 "FieldValueRequired")])
    if field_manager and len(field_manager) > MAX_MANAGER:
        raise StatusError("Invalid", f"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not "
                                     f"be more than {MAX_MANAGER} bytes", [Cause("fieldManager", "Too long")])
