"""The store's state machine: objects, the global revision, per-key digests and the changes
a command makes. Pure logic: persistence and the wire are elsewhere."""
from __future__ import annotations

from typing import Callable, Iterator

from api import customkinds, customobjects, selectors
from api.fieldselectors import parse_fields, supported
from api.registry import KindInfo, lookup
from api.errors import already_exists, conflict, forbidden, invalid, not_found
from api.status import bad_request, too_large, Cause
from api.updates import pod_spec_update, status_update_causes, update_causes
from bus import codec
from bus.digest import KeyDigest
from bus.topology import matcher, object_key
from api import service
from store import deletion, managed, objects
from store.allocators import Allocation, AllocationError
from store.quotas import QuotaIndex, charges
from store.records import Change, Entry, ObjKey, oid_of

GENERATE_NAME_TRIES = 8
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")  # NamespaceLifecycle refuses their deletion


class State:
    """All objects in memory, loaded from and written through to a backend by the store actor."""

    def __init__(self, clock: Callable[[], float], max_object_bytes: int = 512 << 10,
                 allocation: Allocation | None = None):
        self.clock = clock
        self.allocation = allocation or Allocation("10.96.0.0/12", "30000-32767")
        self.max_object_bytes = max_object_bytes
        self.rev = 0
        self.objects: dict[ObjKey, Entry] = {}
        self.digests: dict[str, KeyDigest] = {}
        self.pending: list[Change] = []
        self.quotas = QuotaIndex()

    # ---- loading -------------------------------------------------------------------------------
    def load(self, rev: int, rows: Iterator[tuple[ObjKey, dict, bytes]]) -> None:
        """Objects as the backend keeps them, with their encoding (not made again)."""
        self.rev = rev
        for oid, obj, raw in rows:
            self._add(oid, Entry(obj, object_key(oid[0], obj), raw))

    def _add(self, oid: ObjKey, entry: Entry) -> Entry:
        meta = entry.obj["metadata"]
        self.objects[oid] = entry
        self.quotas.added(oid)
        if oid[0] == "Service":
            self.allocation.hold(entry.obj, True)
        elif oid[0] == "CustomResourceDefinition":
            customkinds.observe(entry.obj)
        self.digests.setdefault(entry.key, KeyDigest()).add(meta["uid"], meta["resourceVersion"])
        return entry

    def _drop(self, oid: ObjKey) -> Entry:
        entry = self.objects.pop(oid)
        self.quotas.dropped(oid)
        if oid[0] == "Service":
            self.allocation.hold(entry.obj, False)
        elif oid[0] == "CustomResourceDefinition":
            customkinds.forget(entry.obj)
        meta = entry.obj["metadata"]
        self.digests[entry.key].remove(meta["uid"], meta["resourceVersion"])
        return entry

    # ---- writing -------------------------------------------------------------------------------
    def _commit(self, type_: str, oid: ObjKey, obj: dict | None, old: Entry | None) -> Entry:
        """Give the change the next revision, apply it, and remember it for the backend. Whatever can
        fail (encoding, the size limit) happens before anything changes."""
        rev = self.rev + 1
        prev = int(old.obj["metadata"]["resourceVersion"]) if old else 0
        deleted = obj is None  # the event carries the last state at the deletion's revision
        base = old.obj if deleted else obj
        obj = {**base, "metadata": {**base["metadata"], "resourceVersion": str(rev)}}
        raw = codec.encode(obj)
        if len(raw) > self.max_object_bytes and not deleted:
            raise too_large(self.max_object_bytes)
        entry = Entry(obj, old.key if deleted else object_key(oid[0], obj), raw)
        self.rev = rev
        if old is not None:
            self._drop(oid)
        if not deleted:
            self._add(oid, entry)
        from_key = old.key if old is not None and old.key != entry.key else None
        self.pending.append(Change(rev, type_, oid[0], oid, prev, from_key, entry))
        return entry

    def take_changes(self) -> list[Change]:
        changes, self.pending = self.pending, []
        return changes

    def seed_namespaces(self) -> None:
        for name in SYSTEM_NAMESPACES:
            if ("Namespace", "", name) not in self.objects:
                self.create("Namespace", None, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
                                                "spec": {"finalizers": ["kubernetes"]},
                                                "status": {"phase": "Active"}})

    # ---- commands ------------------------------------------------------------------------------
    def get(self, kind: str, namespace: str | None, name: str) -> Entry:
        info = lookup(kind)
        entry = self.objects.get(oid_of(info, namespace, name))
        if entry is None:
            raise not_found(info.kind, name)
        return entry

    def create(self, kind: str, namespace: str | None, obj: dict, options: dict | None = None) -> Entry:
        info = lookup(kind)
        meta = dict(_metadata(obj))
        obj = {**obj, "metadata": meta}
        if info.namespaced:
            meta["namespace"] = namespace  # the request's (api/scope.py placed the object there)
            home = self.objects.get(("Namespace", "", meta["namespace"]))
            if home is None:
                raise not_found("Namespace", meta["namespace"])
            if home.obj["metadata"].get("deletionTimestamp"):
                raise forbidden(info.kind, meta.get("name") or meta.get("generateName") or "",
                                f"unable to create new content in namespace {meta['namespace']} because it is "
                                f"being terminated")
        if not meta.get("name"):
            if not meta.get("generateName"):
                raise invalid(info.kind, "", [Cause("metadata.name", "Required value: name or generateName is "
                                                                      "required", "FieldValueRequired")])
            meta["name"] = self._unused_name(info, meta)
        oid = oid_of(info, meta.get("namespace"), meta["name"])
        if oid in self.objects:
            raise already_exists(info.kind, meta["name"])
        objects.stamp_new(obj, self.rev + 1, self.clock())
        managed.keep(info, None, obj, options or {}, self.clock())
        custom = customkinds.custom(info.kind)
        if custom is not None:
            objects.custom_created(custom, obj)
        if info.kind == "Service":
            obj = self._allocated(obj, None)
        elif info.kind == "Job":
            objects.job_selector(obj)
        elif info.kind == "DaemonSet":
            objects.template_generation(obj, None)
        objects.created_status(info.kind, obj)
        charged = charges([self.objects[q].obj for q in self.quotas.of(oid[1])], info.kind, obj) \
            if info.namespaced else []
        entry = self._commit("ADDED", oid, obj, None)
        for new, old in charged:  # in the same commit: the object and its quotas' usage, or neither
            qid = oid_of(lookup("ResourceQuota"), old["metadata"]["namespace"], old["metadata"]["name"])
            self._commit("MODIFIED", qid, new, self.objects[qid])
        return entry

    def _unused_name(self, info: KindInfo, meta: dict) -> str:
        """A generated name not in use; like Kubernetes (RetryGenerateName, on since v1.32) try a few
        times before answering AlreadyExists."""
        for _ in range(GENERATE_NAME_TRIES):
            name = objects.generate_name(meta["generateName"])
            if oid_of(info, meta.get("namespace"), name) not in self.objects:
                return name
        return name

    def update(self, kind: str, namespace: str | None, obj: dict, resource_version: str | None,
               status_only: bool = False, options: dict | None = None) -> Entry:
        info = lookup(kind)
        meta = _metadata(obj)
        oid = oid_of(info, namespace, meta.get("name", ""))  # the request's namespace, never the body's
        old = self.objects.get(oid)
        if old is None:
            raise not_found(info.kind, oid[2])
        self._precondition(info, old, resource_version or meta.get("resourceVersion"))
        new = self._merge(info, old.obj, {**obj, "metadata": dict(meta)}, status_only)
        managed.keep(info, old.obj, new, options or {}, self.clock(), "status" if status_only else "", meta)
        if objects.same_content(new, old.obj):
            return old
        if new["metadata"].get("deletionTimestamp") and not deletion.held(info.kind, new) \
                and deletion.finalizers_released(info.kind, old.obj):
            return self._commit("DELETED", oid, None, old)
        return self._commit("MODIFIED", oid, new, old)

    def _precondition(self, info: KindInfo, old: Entry, resource_version: str | None) -> None:
        if resource_version:
            if resource_version != old.obj["metadata"]["resourceVersion"]:
                raise conflict(info.kind, old.obj["metadata"]["name"])
        elif not info.unconditional_update:
            raise invalid(info.kind, old.obj["metadata"]["name"],
                          [Cause("metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update")])

    def _merge(self, info: KindInfo, old: dict, new: dict, status_only: bool) -> dict:
        if status_only:
            merged = dict(old)
            if "status" in new:
                merged["status"] = new["status"]
            if info.kind == "Pod" and (new.get("spec") or {}).get("nodeName", old["spec"].get("nodeName")) != \
                    old["spec"].get("nodeName"):
                raise invalid(info.kind, old["metadata"]["name"],
                              [Cause("spec.nodeName", "Forbidden: may not be changed directly", "FieldValueForbidden")])
            causes = status_update_causes(info.kind, old, merged)
            if causes:
                raise invalid(info.kind, old["metadata"]["name"], causes)
            return merged
        objects.carry_server_fields(info.kind, old, new)
        if info.kind == "Service":
            service.carry(old, new)
        causes = update_causes(info.kind, old, new)
        if info.kind == "Pod" and new.get("spec") != old.get("spec"):
            causes += pod_spec_update(old.get("spec") or {}, new.get("spec") or {})
        if causes:
            raise invalid(info.kind, old["metadata"]["name"], causes)
        custom = customkinds.custom(info.kind)
        if custom is not None:
            objects.custom_updated(custom, old, new)
        else:
            if "status" in old:
                new["status"] = old["status"]
            if info.has_spec_generation and new.get("spec") != old.get("spec"):
                new["metadata"]["generation"] = old["metadata"].get("generation", 1) + 1
        if info.kind == "DaemonSet":
            objects.template_generation(new, old)
        return self._allocated(new, old) if info.kind == "Service" else new

    def _allocated(self, obj: dict, old: dict | None) -> dict:
        """A Service with its ClusterIP and node ports; Invalid (named) when a requested one is taken."""
        try:
            return self.allocation.assign(obj, old)
        except AllocationError as exc:
            raise invalid("Service", obj["metadata"]["name"], exc.causes) from None

    def delete(self, kind: str, namespace: str | None, name: str, options: dict) -> Entry:
        info = lookup(kind)
        oid = oid_of(info, namespace, name)
        old = self.objects.get(oid)
        if old is None:
            raise not_found(info.kind, name)
        if info.kind == "Namespace" and name in IMMORTAL_NAMESPACES:
            raise forbidden(info.kind, name, "this namespace may not be deleted")
        pre = options.get("preconditions") or {}
        meta = old.obj["metadata"]
        if pre.get("uid") and pre["uid"] != meta["uid"]:
            raise conflict(info.kind, name, f"Precondition failed: UID in precondition: {pre['uid']}, UID in "
                                            f"object meta: {meta['uid']}")
        if pre.get("resourceVersion") and pre["resourceVersion"] != meta["resourceVersion"]:
            raise conflict(info.kind, name)
        marked = deletion.mark(info.kind, old.obj, options, self.clock())
        if marked is None:
            return self._commit("DELETED", oid, None, old)
        if marked is old.obj:
            return old
        return self._commit("MODIFIED", oid, marked, old)

    def bind(self, namespace: str | None, name: str, binding: dict, uid: str | None,
             resource_version: str | None = None) -> Entry:
        """Set spec.nodeName once (a CAS on it being empty, and on uid / resourceVersion if given)."""
        info = lookup("Pod")
        oid = oid_of(info, namespace, name)
        old = self.objects.get(oid)
        if old is None:
            raise not_found("Pod", name)
        target = (binding.get("target") or {})
        if not target.get("name") or target.get("kind", "Node") not in ("Node", ""):
            raise invalid("Binding", name, [Cause("target.name", "Required value", "FieldValueRequired")])
        pod = old.obj
        if uid and uid != pod["metadata"]["uid"]:
            raise conflict("Pod", name, f"Precondition failed: UID in precondition: {uid}, UID in object meta: "
                                        f"{pod['metadata']['uid']}")
        if resource_version and resource_version != pod["metadata"]["resourceVersion"]:
            raise conflict("Pod", name)
        if pod["metadata"].get("deletionTimestamp"):
            raise conflict("Pod", name, f"pod {name} is being deleted, cannot be assigned to a host")
        if pod["spec"].get("nodeName"):
            raise conflict("Pod", name, f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"')
        status = dict(pod.get("status") or {})
        status["conditions"] = list(status.get("conditions") or [])
        objects.set_condition(status, objects.condition("PodScheduled", "True", self.clock()))
        new = {**pod, "spec": {**pod["spec"], "nodeName": target["name"]}, "status": status}
        return self._commit("MODIFIED", oid, new, old)

    # ---- reads ---------------------------------------------------------------------------------
    def list(self, kind: str, namespace: str | None, options: dict) -> Iterator[Entry]:
        """The objects of a list, cut now (bad selectors raise now); filtered and sorted as read, which
        may be on another thread: stored objects never change in place."""
        info = lookup(kind)
        try:
            labels = selectors.parse(options.get("labelSelector"))
        except ValueError as exc:
            raise bad_request(f"unable to parse requirement: {exc}") from None
        fields = parse_fields(options.get("fieldSelector"))
        if (custom := customkinds.custom(info.kind)) is not None:
            customobjects.check_fields(custom, fields)
        else:
            fields = supported(info.kind, fields)
        ns = namespace if info.namespaced else None
        cut = list(self.objects.items())

        def listed() -> Iterator[Entry]:
            found = [(oid, entry) for oid, entry in cut
                     if oid[0] == info.kind and (not ns or oid[1] == ns)
                     and labels.matches(entry.obj["metadata"].get("labels")) and fields.matches(entry.obj)]
            for _, entry in sorted(found, key=lambda pair: pair[0]):  # namespace, then name: etcd's key order
                yield entry

        return listed()

    def snapshot(self, keys: list[str]) -> Iterator[Entry]:
        """The objects under `keys`, cut now; matched as read (see `list`)."""
        wanted, cut = matcher(tuple(keys)), list(self.objects.values())
        return (entry for entry in cut if wanted.matches(entry.key))


def _metadata(obj: dict) -> dict:
    """An object's metadata, checked for the shape the store relies on (maps where maps belong, identity
    fields strings): the apiserver admitted it, but a command may reach the store some other way."""
    meta = obj.get("metadata") or {}
    for field, value in (("metadata", meta), ("spec", obj.get("spec", {})), ("status", obj.get("status", {}))):
        if not isinstance(value, dict):
            raise bad_request(f"{field}: Invalid value: must be of type object")
    for field in ("name", "generateName", "namespace", "uid", "resourceVersion"):
        if not isinstance(meta.get(field, ""), str):
            raise bad_request(f"metadata.{field}: Invalid value: must be of type string")
    return meta
