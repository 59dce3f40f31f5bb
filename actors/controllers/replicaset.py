"""The ReplicaSet controller: keeps `replicas` pods that match the selector, adopting orphans and
releasing pods that stop matching; creates in slow-start batches (1, 2, 4, ...) under expectations;
deletes surplus in Kubernetes' order; reports status."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers.base import Controller
from actors.controllers.claims import claim, controller_of, controller_ref, matching
from actors.controllers.expectations import Expectations
from actors.controllers.slowstart import SlowStart
from actors.controllers.ranking import is_ready, pods_to_delete
from api.status import StatusError
from api.times import rfc3339, seconds
from runtime.cache import Delta

BURST = 500


def is_active(pod: dict) -> bool:
    return not pod["metadata"].get("deletionTimestamp") and \
        (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def ready_for(pod: dict) -> float:
    """Seconds the pod has been Ready."""
    since = next((c.get("lastTransitionTime") for c in (pod.get("status") or {}).get("conditions") or []
                  if c.get("type") == "Ready" and c.get("status") == "True"), None)
    return time.time() - seconds(since) if since else 0.0


class ReplicaSetController(SlowStart, Controller):
    name = "controller.replicaset"
    kinds = ("replicaset", "pod")
    owner_kind = "ReplicaSet"

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.expectations = Expectations(time.monotonic)
        self.failures: dict[str, tuple[str, str]] = {}  # key -> (FailedCreate|FailedDelete, message)

    def on_active(self) -> None:
        super().on_active()
        self.expectations = Expectations(time.monotonic)
        self.failures = {}

    # ---- which keys a change concerns --------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == self.owner_kind:
            if delta.type == "DELETED":
                self.expectations.forget(f"{ns}/{meta['name']}")
            return [f"{ns}/{meta['name']}"]
        owner = controller_of(delta.object)
        if owner is not None and owner.get("kind") == self.owner_kind:
            key = f"{ns}/{owner['name']}"
            if delta.type == "ADDED" and not delta.synthetic:
                self.expectations.created(key)
            if delta.type == "DELETED" or meta.get("deletionTimestamp"):
                self.expectations.deleted(key, meta["uid"])
            return [key]
        return [f"{ns}/{rs['metadata']['name']}" for rs in matching(self.owners(ns), delta.object)]

    def owner(self, ns: str, name: str) -> dict | None:
        return self.get(self.owner_kind, ns, name)

    def owners(self, ns: str) -> list[dict]:
        return self.in_namespace(self.owner_kind, ns)

    # ---- reconcile -----------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        rs = self.owner(ns, name)
        if rs is None:
            return
        pods = self._claim(rs)
        active = [p for p in pods if is_active(p)]
        if self.expectations.satisfied(key) and not rs["metadata"].get("deletionTimestamp"):
            going = {p["metadata"]["uid"] for p in self._manage(rs, key, active)}
        else:
            going = self.expectations.deleting(key)  # deleted by an earlier sync, not yet seen going
        self._report(rs, [p for p in active if p["metadata"]["uid"] not in going])  # status counts them gone

    def _claim(self, rs: dict) -> list[dict]:
        """Owned pods that match; adopt matching active orphans; release owned pods that stop matching."""
        return claim(rs, self.in_namespace("Pod", rs["metadata"]["namespace"]), self.set_owners, is_active)

    def _manage(self, rs: dict, key: str, active: list[dict]) -> list[dict]:
        """Create or delete toward spec.replicas; returns the pods it deletes."""
        diff = len(active) - rs["spec"].get("replicas", 1)
        if diff == 0:
            self.failures.pop(key, None)
        if diff < 0:
            count = min(-diff, BURST)
            self.expectations.expect(key, adds=count)
            self.create_slowly(key, rs, [self._pod_from_template(rs) for _ in range(count)])
        elif diff > 0:
            related = [p for p in self.in_namespace("Pod", rs["metadata"]["namespace"]) if is_active(p)]
            victims = pods_to_delete(active, related, min(diff, BURST))
            self.expectations.expect(key, deletes={p["metadata"]["uid"] for p in victims})
            for pod in victims:
                self._delete(rs, key, pod)
            return victims
        return []

    def create_failed(self, key: str, message: str) -> None:
        self.failures[key] = ("FailedCreate", message)

    def all_created(self, key: str) -> None:
        self.failures.pop(key, None)

    def _pod_from_template(self, rs: dict) -> dict:
        template = rs["spec"].get("template") or {}
        meta = template.get("metadata") or {}
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"generateName": f"{rs['metadata']['name']}-", "namespace": rs["metadata"]["namespace"],
                             "labels": dict(meta.get("labels") or {}), "annotations": dict(meta.get("annotations") or {}),
                             "ownerReferences": [controller_ref(rs)]},
                "spec": template.get("spec") or {}}

    def _delete(self, rs: dict, key: str, pod: dict) -> None:
        meta = pod["metadata"]

        def deleted(result) -> None:
            if isinstance(result, StatusError):
                self.expectations.deleted(key, meta["uid"])
                if result.reason != "NotFound":
                    self.failures[key] = ("FailedDelete", result.message)
                    self.event(rs, "FailedDelete", f"Error deleting: {result.message}", "Warning")
                    self.retry(key)
            else:
                self.event(rs, "SuccessfulDelete", f"Deleted pod: {meta['name']}")

        self.write({"verb": "delete", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                    "options": {"preconditions": {"uid": meta["uid"]}}}, deleted)

    def _conditions(self, rs: dict, key: str) -> list[dict]:
        """ReplicaFailure while creating or deleting pods fails (Kubernetes' calculateStatus)."""
        conditions = (rs.get("status") or {}).get("conditions") or []
        others = [c for c in conditions if c.get("type") != "ReplicaFailure"]
        failure = self.failures.get(key)
        if failure is None:
            return others
        previous = [c for c in conditions if c.get("type") == "ReplicaFailure"]
        return others + (previous or [{"type": "ReplicaFailure", "status": "True", "reason": failure[0],
                                       "message": failure[1], "lastTransitionTime": rfc3339(time.time())}])

    def _report(self, rs: dict, active: list[dict]) -> None:
        template_labels = ((rs["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}
        ready = [p for p in active if is_ready(p)]
        min_ready = rs["spec"].get("minReadySeconds", 0)
        available = [p for p in ready if ready_for(p) >= min_ready]
        if len(available) < len(ready):  # look again once they have been ready long enough
            self.queue.add_after(f"{rs['metadata']['namespace']}/{rs['metadata']['name']}", min_ready + 1)
        status = {**(rs.get("status") or {}), "replicas": len(active),
                  "fullyLabeledReplicas": sum(1 for p in active
                                              if template_labels.items() <= (p["metadata"].get("labels") or {}).items()),
                  "readyReplicas": len(ready), "availableReplicas": len(available),
                  "observedGeneration": rs["metadata"].get("generation", 1)}
        conditions = self._conditions(rs, f"{rs['metadata']['namespace']}/{rs['metadata']['name']}")
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
        if status != rs.get("status"):
            self.write({"verb": "updateStatus", "kind": self.owner_kind,
                        "namespace": rs["metadata"]["namespace"],
                        "name": rs["metadata"]["name"], "resourceVersion": rs["metadata"]["resourceVersion"],
                        "object": {**rs, "status": status}},
                       lambda r: self.retry(f"{rs['metadata']['namespace']}/{rs['metadata']['name']}")
                       if isinstance(r, StatusError) else None)
