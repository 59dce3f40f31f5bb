"""The garbage collector: dependents whose owners are all gone are deleted (background);
`foregroundDeletion` owners wait for their blocking dependents; `orphan` owners let them go.

Custom kinds join the graph as Kubernetes' GC discovers them: a CRD that becomes Established adds a
cache of its kind (a queue bound to `<kind>.#`), a CRD that goes drops it. Until that cache has loaded
its snapshot an owner of the kind counts as present, so nothing is collected on a half-known graph."""
from __future__ import annotations

from typing import Any

from actors.controllers.base import Controller
from api.apiextensions import is_true
from api.registry import KINDS
from api.status import StatusError
from bus.declare import QueueSpec
from runtime.cache import Delta

FOREGROUND, ORPHAN = "foregroundDeletion", "orphan"
Ident = tuple[str, str, str]  # kind, namespace, name


def _key(ident: Ident) -> str:
    return "/".join(ident)


def _ident(obj: dict, kind: str) -> Ident:
    return kind, obj["metadata"].get("namespace") or "", obj["metadata"]["name"]


class GarbageCollector(Controller):
    name = "controller.gc"
    kinds = ("pod", "replicaset", "deployment", "job", "cronjob", "replicationcontroller", "daemonset", "statefulset",
             "controllerrevision", "persistentvolumeclaim", "node", "lease", "service", "endpointslice",  # Node: Lease
             "configmap", "secret", "customresourcedefinition")  # CRDs: the custom kinds to follow

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.by_uid: dict[str, Ident] = {}
        self.dependents: dict[str, set[Ident]] = {}  # owner uid -> dependents
        self.custom: dict[str, str] = {}  # a followed custom kind -> the CRD's name
        self.synced: set[str] = set()  # the custom kinds whose cache has loaded

    def on_active(self) -> None:
        super().on_active()
        self.by_uid, self.dependents = {}, {}

    # ---- custom kinds ----------------------------------------------------------------------------
    def _on_crd(self, delta: Delta) -> None:
        crd = delta.object
        names = (crd.get("status") or {}).get("acceptedNames") or {}
        kind = names.get("kind")
        followed = [k for k, name in self.custom.items() if name == crd["metadata"]["name"]]
        for old in followed:
            if delta.type == "DELETED" or old != kind or not is_true(crd, "Established"):
                self._unfollow(old)
        if delta.type != "DELETED" and kind and is_true(crd, "Established") and kind not in self.custom \
                and kind.lower() not in self.kinds:
            self._follow(kind, crd["metadata"]["name"])

    def _queue(self, kind: str) -> str:
        return f"{self.names.actor_queue(self.name)}.custom.{kind.lower()}"

    def _follow(self, kind: str, crd: str) -> None:
        self.log.info("gc.following", kind=kind, crd=crd)
        self.custom[kind] = crd
        spec = QueueSpec(self._queue(kind), ((self.names.events, f"{kind.lower()}.#"),), durable=False,
                         exclusive=True, auto_delete=True)
        self.add_informer(spec, self._on_delta, lambda: self._synced(kind))

    def _synced(self, kind: str) -> None:
        """The kind's owners are known now: look again at every dependent that names one."""
        self.synced.add(kind)
        for of_kind, objects in self.objects.items():
            for obj in objects.values():
                if any(r.get("kind") == kind for r in obj["metadata"].get("ownerReferences") or []):
                    self.queue.add(_key(_ident(obj, of_kind)))
        self.kick()

    def _unfollow(self, kind: str) -> None:
        self.log.info("gc.unfollowing", kind=kind)
        self.remove_informer(self._queue(kind))
        self.custom.pop(kind, None)
        self.synced.discard(kind)
        for obj in list(self.objects.pop(kind, {}).values()):
            self.by_uid.pop(obj["metadata"]["uid"], None)

    # ---- the graph -----------------------------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        if delta.kind == "CustomResourceDefinition":
            self._on_crd(delta)
            return []
        ident = _ident(delta.object, delta.kind)
        uid = delta.object["metadata"]["uid"]
        for ref in (old or {}).get("metadata", {}).get("ownerReferences") or []:
            self.dependents.get(ref["uid"], set()).discard(ident)
        keys = [_key(ident)]
        if delta.type == "DELETED":
            self.by_uid.pop(uid, None)
            keys += [_key(d) for d in self.dependents.get(uid, ())]  # orphaned now
        else:
            self.by_uid[uid] = ident
            for ref in delta.object["metadata"].get("ownerReferences") or []:
                self.dependents.setdefault(ref["uid"], set()).add(ident)
        refs = (delta.object["metadata"].get("ownerReferences") or []) + \
            ((old or {}).get("metadata", {}).get("ownerReferences") or [])
        owners = {self.by_uid.get(r["uid"]) for r in refs}
        return keys + [_key(o) for o in owners if o]  # an owner may be waiting for this one to go

    def _object(self, ident: Ident) -> dict | None:
        return self.get(*ident)

    def _owner_present(self, ref: dict, namespace: str) -> bool:
        """Owners of kinds this collector does not watch (or whose cache has not loaded yet) count as
        present: it cannot tell."""
        if ref.get("kind") not in WATCHED and ref.get("kind") not in self.synced:
            return True
        ident = self.by_uid.get(ref["uid"])
        return ident is not None and ident[2] == ref["name"] and ident[1] in (namespace, "")

    # ---- reconcile -----------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        kind, ns, name = key.split("/", 2)
        obj = self.get(kind, ns, name)
        if obj is None:
            return
        meta = obj["metadata"]
        finalizers = meta.get("finalizers") or []
        if meta.get("deletionTimestamp") and ORPHAN in finalizers:
            self._orphan(obj, kind)
        elif meta.get("deletionTimestamp") and FOREGROUND in finalizers:
            self._foreground(obj, kind)
        refs = meta.get("ownerReferences") or []
        if refs and not meta.get("deletionTimestamp") and not any(self._owner_present(r, ns) for r in refs):
            owner = self.by_uid.get(refs[0]["uid"])
            policy = "Foreground" if owner and FOREGROUND in (self.get(*owner) or {}).get("metadata", {}).get(
                "finalizers", []) else "Background"
            self._delete(kind, obj, policy)

    def _orphan(self, owner: dict, kind: str) -> None:
        uid = owner["metadata"]["uid"]
        left = [d for d in self.dependents.get(uid, ()) if self._object(d)]
        for ident in left:
            dep = self._object(ident)
            refs = [r for r in dep["metadata"].get("ownerReferences") or [] if r["uid"] != uid]
            self.write({"verb": "patch", "kind": ident[0], "namespace": ident[1] or None, "name": ident[2],
                        "object": {"metadata": {"ownerReferences": refs or None}}})
        if not left:
            self._drop_finalizer(owner, kind, ORPHAN)

    def _foreground(self, owner: dict, kind: str) -> None:
        uid = owner["metadata"]["uid"]
        blocking = []
        for ident in list(self.dependents.get(uid, ())):
            dep = self._object(ident)
            if dep is None:
                continue
            if not dep["metadata"].get("deletionTimestamp"):
                if self._closes_a_cycle(dep):
                    self._unblock(ident, dep)
                self._delete(ident[0], dep, "Foreground")
            ref = next((r for r in dep["metadata"].get("ownerReferences") or [] if r["uid"] == uid), {})
            if ref.get("blockOwnerDeletion"):
                blocking.append(ident)
        if not blocking:
            self._drop_finalizer(owner, kind, FOREGROUND)

    def _closes_a_cycle(self, dep: dict) -> bool:
        """A dependent deleted in the foreground whose own dependent is already waiting on its
        dependents: deleting it foreground too could wait in a circle (pod1 → pod3 → pod2 → pod1).
        Kubernetes' collector then unblocks its owner references first (a check with false
        positives, as Kubernetes says of its own)."""
        for ident in self.dependents.get(dep["metadata"]["uid"], ()):
            meta = (self._object(ident) or {}).get("metadata", {})
            if meta.get("deletionTimestamp") and FOREGROUND in (meta.get("finalizers") or []):
                return True
        return False

    def _unblock(self, ident: Ident, dep: dict) -> None:
        refs = [{**r, "blockOwnerDeletion": False} if r.get("blockOwnerDeletion") else r
                for r in dep["metadata"].get("ownerReferences") or []]
        self.log.info("gc.unblocking", kind=ident[0], object=f"{ident[1]}/{ident[2]}", why="a possible cycle")
        self.write({"verb": "patch", "kind": ident[0], "namespace": ident[1] or None, "name": ident[2],
                    "object": {"metadata": {"ownerReferences": refs}}})

    def _delete(self, kind: str, obj: dict, policy: str) -> None:
        meta = obj["metadata"]
        self.log.info("gc.deleting", kind=kind, object=f"{meta.get('namespace')}/{meta['name']}", policy=policy,
                      rev=meta.get("resourceVersion"))
        self.write({"verb": "delete", "kind": kind, "namespace": meta.get("namespace"), "name": meta["name"],
                    "options": {"propagationPolicy": policy, "preconditions": {"uid": meta["uid"]}}})

    def _drop_finalizer(self, obj: dict, kind: str, finalizer: str) -> None:
        meta = obj["metadata"]
        rest = [f for f in meta.get("finalizers") or [] if f != finalizer]
        key = _key(_ident(obj, kind))
        self.write({"verb": "update", "kind": kind, "namespace": meta.get("namespace"), "name": meta["name"],
                    "resourceVersion": meta["resourceVersion"],
                    "object": {**obj, "metadata": {**meta, "finalizers": rest}}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) and r.reason != "NotFound" else None)


WATCHED = frozenset(KINDS[k].kind for k in KINDS if k.lower() in GarbageCollector.kinds)
