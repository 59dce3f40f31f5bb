"""The disruption controller (Kubernetes' pkg/controller/disruption): each PodDisruptionBudget's status
from the pods it selects and their controllers' scale (disruptionsync.py), written with the budget's
resourceVersion — the eviction handler writes the same status (a decrement and `disruptedPods`), so
neither overwrites the other. An awaited eviction that times out is looked at again when it does."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers import disruptionsync
from actors.controllers.base import Controller
from api import pdb as pdbs
from api.registry import known
from api.status import StatusError
from runtime.cache import Delta

PDB = "PodDisruptionBudget"
WORKLOADS = ("ReplicaSet", "Deployment", "StatefulSet", "ReplicationController")
UNMANAGED = ("Pods selected by this PodDisruptionBudget (selector: {}) were found to be unmanaged or managed by an "
             "unsupported controller (missing a /scale subresource). As a result, the status of the PDB cannot be "
             "calculated correctly, which may result in undefined behavior. To account for these pods please set "
             "\".spec.minAvailable\" field of the PDB to an integer value.")


class DisruptionController(Controller):
    name = "controller.disruption"
    kinds = tuple(k.lower() for k in (PDB, "Pod", *WORKLOADS) if known(k))  # the workloads this cluster serves

    def __init__(self, settings, clock=time.time, **kw: Any):
        super().__init__(settings, **kw)
        self.clock = clock

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == PDB:
            return [] if delta.type == "DELETED" else [f"{ns}/{meta['name']}"]
        budgets = self.in_namespace(PDB, ns)
        if delta.kind == "Pod":
            budgets = [b for b in budgets if any(pdbs.selects(b, p) for p in (delta.object, old) if p)]
        return [f"{ns}/{b['metadata']['name']}" for b in budgets]

    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        budget = self.get(PDB, ns, name)
        if budget is None or budget["metadata"].get("deletionTimestamp"):
            return
        pods = [p for p in self.in_namespace("Pod", ns) if pdbs.selects(budget, p)]
        now = self.clock()
        outcome = disruptionsync.sync(budget, pods, self._scale_of, now)
        if outcome.unmanaged:
            self.event(budget, "UnmanagedPods", UNMANAGED.format(budget["spec"].get("selector")))
        for pod in outcome.not_deleted:
            self.event(self.get("Pod", ns, pod) or budget, "NotDeleted",
                       f"Pod was expected by PDB {ns}/{name} to be deleted but it wasn't", "Warning")
        if outcome.recheck_at is not None:
            self.queue.add_after(key, max(0.0, outcome.recheck_at - now) + 0.1)
        if _same(budget.get("status") or {}, outcome.status):
            return
        self.write({"verb": "updateStatus", "kind": PDB, "namespace": ns, "name": name,
                    "resourceVersion": budget["metadata"]["resourceVersion"],
                    "object": {**budget, "status": outcome.status}},
                   lambda r: self._written(key, r))

    def _written(self, key: str, reply) -> None:
        if isinstance(reply, StatusError) and reply.reason != "NotFound":
            self.log.info("disruption.status_not_written", pdb=key, reason=reply.reason)
            self.retry(key)  # a Conflict: an eviction wrote first; look again at what it left

    def _scale_of(self, namespace: str, ref: dict) -> tuple[str, int] | None:
        """The finders: a ReplicaSet of a Deployment counts as its Deployment; else the controller's own
        spec.replicas (StatefulSet, ReplicationController, a bare ReplicaSet)."""
        if ref.get("kind") not in WORKLOADS:
            return None
        owner = self.get(ref["kind"], namespace, ref.get("name", ""))
        if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
            return None
        if ref["kind"] == "ReplicaSet":
            parent = next((r for r in owner["metadata"].get("ownerReferences") or []
                           if r.get("controller") and r.get("kind") == "Deployment"), None)
            if parent is not None:
                return self._scale_of(namespace, parent)
        return owner["metadata"]["uid"], int((owner.get("spec") or {}).get("replicas", 1))


def _same(old: dict, new: dict) -> bool:
    """Equal but for the condition's transition time (kept when the status stays)."""
    def strip(status: dict) -> dict:
        return {**status, "conditions": [{k: v for k, v in c.items() if k != "lastTransitionTime"}
                                         for c in status.get("conditions") or []]}
    return strip({k: v for k, v in old.items() if v not in (None, {})}) == \
        strip({k: v for k, v in new.items() if v not in (None, {})})
