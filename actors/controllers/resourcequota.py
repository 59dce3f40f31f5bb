"""The resourcequota controller: each ResourceQuota's `status.hard` is its `spec.hard` and `status.used`
what the namespace's live objects take of it (`api.quota.recompute`: the pod and object-count
evaluators), so the ResourceQuota admission plugin, which reads `status`, refuses what would go over.

It caches every namespaced kind it can count except Events (many, short-lived, and rarely under
quota: a `count/events` quota is left uncounted), and recomputes a namespace's quotas whenever one
of their objects changes there.
"""
from __future__ import annotations

import time

from actors.controllers.base import Controller
from api.quota import counts_toward_compute, kinds_counted, recompute
from api.registry import KINDS
from api.status import StatusError
from api.times import seconds
from runtime.cache import Delta

COUNTED = tuple(info.kind for info in KINDS.values() if info.namespaced and info.kind != "Event")


class ResourceQuotaController(Controller):
    name = "controller.resourcequota"
    kinds = tuple(kind.lower() for kind in COUNTED)

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        """A quota's own change concerns it; any other object's, every quota of its namespace."""
        meta = delta.object["metadata"]
        ns = meta.get("namespace") or ""
        if delta.kind == "ResourceQuota":
            return [f"{ns}/{meta['name']}"]
        return [f"{ns}/{q['metadata']['name']}" for q in self.in_namespace("ResourceQuota", ns)]

    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        quota = self.get("ResourceQuota", ns, name)
        if quota is None or quota["metadata"].get("deletionTimestamp"):
            return
        now = time.time()
        objects = {kind: self.in_namespace(kind, ns) for kind in kinds_counted(quota) if kind in COUNTED}
        status = recompute(quota, objects, now)
        self._recheck_when_grace_ends(key, ns, now)
        if status == (quota.get("status") or {}):
            return
        self.log.info("resourcequota.status", quota=key, used=status["used"], rv=quota["metadata"]["resourceVersion"])
        self.write({"verb": "updateStatus", "kind": "ResourceQuota", "namespace": ns, "name": name,
                    "resourceVersion": quota["metadata"]["resourceVersion"], "object": {**quota, "status": status}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) else None)

    def _recheck_when_grace_ends(self, key: str, ns: str, now: float) -> None:
        """A pod stuck terminating stops being charged when its grace runs out: look again then."""
        ends = [seconds(p["metadata"]["deletionTimestamp"]) + p["metadata"]["deletionGracePeriodSeconds"] - now
                for p in self.in_namespace("Pod", ns)
                if p["metadata"].get("deletionTimestamp") and p["metadata"].get("deletionGracePeriodSeconds") is not None
                and counts_toward_compute(p, now)]
        if ends:
            self.queue.add_after(key, max(min(ends), 0) + 0.1)
