"""The DaemonSet controller: for each DaemonSet, its history in ControllerRevisions (history.py),
then the Plan of daemonsync.py carried out through the apiserver — a pod per eligible node created
(slow start, under expectations) with the node's affinity term for the scheduler to bind, unwanted,
failed (with a per-node back-off) and rolled pods deleted, old revisions cleaned, the status written."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers import daemonsync
from actors.controllers.base import Controller
from actors.controllers.claims import claim, controller_of, matching
from actors.controllers.daemonnodes import placement, pod_for
from actors.controllers.slowstart import SlowStart
from actors.controllers.history import HASH_LABEL, Recorder, construct, to_clean
from actors.controllers.expectations import Expectations
from api.status import StatusError
from runtime.cache import Delta

BURST = 250  # Kubernetes' burstReplicas
BACKOFF_S, MAX_BACKOFF_S = 1.0, 900.0


class DaemonSetController(Recorder, SlowStart, Controller):
    name = "controller.daemonset"
    kinds = ("daemonset", "pod", "node", "controllerrevision")

    def __init__(self, settings, clock=time.time, **kw: Any):
        super().__init__(settings, **kw)
        self.clock = clock
        self.expectations = Expectations(time.monotonic)
        self.backoff: dict[tuple[str, str], tuple[float, float]] = {}  # (key, node) -> (until, delay)
        self.recording: set[str] = set()  # keys whose revision write is in flight

    def on_active(self) -> None:
        super().on_active()
        self.expectations = Expectations(time.monotonic)
        self.recording = set()

    # ---- which keys a change concerns --------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == "DaemonSet":
            if delta.type == "DELETED":
                self.expectations.forget(f"{ns}/{meta['name']}")
            return [f"{ns}/{meta['name']}"]
        if delta.kind == "Node":
            return [] if _same_placement(old, delta) else self._every_daemonset()
        owner = controller_of(delta.object)
        if owner is None:
            if delta.kind == "Pod" and delta.type != "DELETED":  # an orphan: who may adopt it
                return [f"{ns}/{d['metadata']['name']}" for d in matching(self.in_namespace("DaemonSet", ns),
                                                                            delta.object)]
            return []
        if owner.get("kind") != "DaemonSet":
            return []
        key = f"{ns}/{owner['name']}"
        if delta.kind == "Pod":
            if delta.type == "ADDED" and not delta.synthetic:
                self.expectations.created(key)
            if delta.type == "DELETED" or meta.get("deletionTimestamp"):
                self.expectations.deleted(key, meta["uid"])
        return [key]

    def _every_daemonset(self) -> list[str]:
        return [f"{ns}/{name}" for ns, name in self.objects.get("DaemonSet", {})]

    # ---- reconcile -----------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        ds = self.get("DaemonSet", ns, name)
        if ds is None or ds["metadata"].get("deletionTimestamp") or key in self.recording:
            return
        pods = claim(ds, self.in_namespace("Pod", ns), self.set_owners)
        revisions = claim(ds, self.in_namespace("ControllerRevision", ns), self.set_owners)
        history = construct(ds, revisions)
        if history.pending:
            self.record_history(key, ds, history)
            return
        places, grouped = placement(ds, list(self.objects.get("Node", {}).values())), daemonsync.by_node(pods)
        now = self.clock()
        if not self.expectations.satisfied(key):
            self._write_status(key, ds, daemonsync.status(ds, places, grouped, history.hash, now))
            return
        plan = daemonsync.sync(ds, places, grouped, history.hash, now, lambda node: self._backing_off(key, node, now))
        for type_, reason, message in plan.events:
            self.event(ds, reason, message, type_)
        for node in plan.failed:
            self._back_off(key, node, now)
        if plan.requeue_after is not None:
            self.queue.add_after(key, plan.requeue_after)
        creates, deletes = plan.create[:BURST], plan.delete[:BURST]
        if plan.writes:  # one record for both: expecting one must not forget the other
            self.expectations.expect(key, adds=len(creates), deletes={p["metadata"]["uid"] for p in deletes})
        if creates:
            self.create_slowly(key, ds, [pod_for(ds, node, history.hash) for node in creates])
        self._delete(key, ds, deletes)
        if not plan.writes:
            live = {(p["metadata"].get("labels") or {}).get(HASH_LABEL) for p in pods}
            for revision in to_clean(ds, history.old, live) + history.duplicates:
                self._delete_object(revision)
        self._write_status(key, ds, daemonsync.status(ds, places, grouped, history.hash, now))

    # ---- pods ----------------------------------------------------------------------------------
    def _backing_off(self, key: str, node: str, now: float) -> bool:
        until, _ = self.backoff.get((key, node), (0.0, 0.0))
        return now < until

    def _back_off(self, key: str, node: str, now: float) -> None:
        _, delay = self.backoff.get((key, node), (0.0, 0.0))
        delay = min(MAX_BACKOFF_S, delay * 2 if delay else BACKOFF_S)
        self.backoff[(key, node)] = (now + delay, delay)

    def _delete(self, key: str, ds: dict, pods: list[dict]) -> None:
        for pod in pods:
            meta = pod["metadata"]

            def deleted(result, meta=meta) -> None:
                if isinstance(result, StatusError):
                    self.expectations.deleted(key, meta["uid"])
                    if result.reason != "NotFound":
                        self.event(ds, "FailedDelete", f"Error deleting: {result.message}", "Warning")
                        self.retry(key)
                else:
                    self.event(ds, "SuccessfulDelete", f"Deleted pod: {meta['name']}")

            self.write({"verb": "delete", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                        "options": {"preconditions": {"uid": meta["uid"]}}}, deleted)

    def _delete_object(self, obj: dict) -> None:
        meta = obj["metadata"]
        self.write({"verb": "delete", "kind": obj["kind"], "namespace": meta["namespace"], "name": meta["name"],
                    "options": {"preconditions": {"uid": meta["uid"]}}})

    def _write_status(self, key: str, ds: dict, status: dict) -> None:
        if status == (ds.get("status") or {}):
            return
        self.write({"verb": "updateStatus", "kind": "DaemonSet", "namespace": ds["metadata"]["namespace"],
                    "name": ds["metadata"]["name"], "resourceVersion": ds["metadata"]["resourceVersion"],
                    "object": {**ds, "status": status}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) else None)


def _same_placement(old: dict | None, delta: Delta) -> bool:
    """A node change that cannot move a daemon pod (shouldIgnoreNodeUpdate): labels, taints, spec alike."""
    if old is None or delta.type != "MODIFIED":
        return False
    new = delta.object
    return (old["metadata"].get("labels") == new["metadata"].get("labels") and old.get("spec") == new.get("spec"))
