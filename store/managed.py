"""managedFields kept where every write lands: an Update's bookkeeping (the writer, its fields, the
time) computed here against the stored object, the one no concurrent write can change under it; an
apply's entries, computed by the apiserver against the object it read (the command's resourceVersion
pins that object), kept as they come."""
from __future__ import annotations

from api import customkinds
from api.managedfields import shape
from api.managedfields.managers import UPDATE, Entry
from api.managedfields.record import recorded
from api.registry import KindInfo
from api.times import rfc3339


def keep(info: KindInfo, old: dict | None, new: dict, options: dict, now: float, subresource: str = "",
         sent: dict | None = None) -> None:
    """Set `new`'s managedFields: the stored ones carried when the write names no manager (or brings
    none), the writer's Update recorded when it does, an apply's as the apiserver computed them (in
    `sent`, the metadata the command carried, which a status write does not store)."""
    meta = new["metadata"] = dict(new["metadata"])
    if options.get("apply"):
        if sent is not None and sent.get("managedFields"):
            meta["managedFields"] = sent["managedFields"]
        return
    if not meta.get("managedFields") and old is not None and old["metadata"].get("managedFields"):
        meta["managedFields"] = old["metadata"]["managedFields"]
    manager = options.get("fieldManager")
    if not manager:
        return
    custom = customkinds.custom(info.kind)
    who = Entry(manager, UPDATE, info.api_version, rfc3339(now), frozenset(), subresource)
    fields = recorded(old, new, shape.of_kind(info.kind, custom.schema if custom else None), who)
    if fields:
        meta["managedFields"] = fields
    else:
        meta.pop("managedFields", None)
