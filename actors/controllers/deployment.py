"""The Deployment controller: one ReplicaSet per pod template (named with its hash), RollingUpdate
within maxSurge / maxUnavailable or Recreate, revision history, pause, progress deadline, status."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers import rollout
from actors.controllers.base import Controller
from actors.controllers.conditions import deployment_conditions
from actors.controllers.claims import claim, controller_of, matching
from api.status import StatusError
from runtime.cache import Delta


class DeploymentController(Controller):
    name = "controller.deployment"
    kinds = ("deployment", "replicaset", "pod")

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.inflight: dict[str, int] = {}  # key -> writes not answered yet
        self.created: set[tuple[str, str]] = set()  # (namespace, name) of the sets this controller made

    def on_active(self) -> None:
        super().on_active()
        self.inflight = {}

    # ---- keys ----------------------------------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == "Deployment":
            return [f"{ns}/{meta['name']}"]
        owner = controller_of(delta.object)
        if delta.kind == "Pod" and owner is not None and owner.get("kind") == "ReplicaSet":
            rs = self.get("ReplicaSet", ns, owner["name"])
            owner = controller_of(rs) if rs else None
        if owner is not None:
            return [f"{ns}/{owner['name']}"] if owner.get("kind") == "Deployment" else []
        if delta.kind == "ReplicaSet" and delta.type != "DELETED":  # an orphan: who may adopt it
            return [f"{ns}/{d['metadata']['name']}" for d in matching(self.in_namespace("Deployment", ns), delta.object)]
        return []

    # ---- reconcile -----------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        d = self.get("Deployment", ns, name)
        if d is None or d["metadata"].get("deletionTimestamp") or self.inflight.get(key):
            return
        owned = claim(d, self.in_namespace("ReplicaSet", ns), self.set_owners)  # adopts orphans too
        wanted = rollout.without_hash(d["spec"]["template"])
        new_rs = next((rs for rs in owned if rollout.without_hash(rs["spec"].get("template")) == wanted), None)
        olds = sorted((rs for rs in owned if rs is not new_rs), key=lambda r: r["metadata"].get("creationTimestamp", ""))
        if d["spec"].get("paused"):
            self._status(key, d, owned, new_rs)
            return
        if new_rs is not None and self._bump_revision(key, new_rs, olds):
            return
        active = [rs for rs in owned if rollout.replicas_of(rs) > 0]
        if len(active) > 1 and rollout.is_scaling_event(d, active):
            sizes = rollout.proportional_sizes(d, active)  # replicas changed mid-rollout: shares
            for rs in active:
                self._scale(key, d, rs, sizes[rs["metadata"]["name"]])
            return
        strategy = (d["spec"].get("strategy") or {}).get("type", "RollingUpdate")
        acted = self._recreate(key, d, new_rs, olds) if strategy == "Recreate" else self._rolling(key, d, new_rs, olds)
        if not acted:
            status = self._status(key, d, owned, new_rs)
            if rollout.complete(d, status):
                self._cleanup(key, d, olds)

    def _rolling(self, key: str, d: dict, new_rs: dict | None, olds: list[dict]) -> bool:
        """At most one phase per sync: create or scale up the new set, else scale old sets down."""
        if new_rs is None:
            self._create(key, d, olds, rollout.new_rs_replicas(d, olds, None))
            return True
        all_rs = olds + [new_rs]
        target = rollout.new_rs_replicas(d, all_rs, new_rs)
        if target != rollout.replicas_of(new_rs):
            self._scale(key, d, new_rs, target)
            return True
        budget = rollout.max_scaled_down(d, all_rs, new_rs)
        if budget <= 0:
            return False
        scaled = False
        for rs in olds:  # unhealthy replicas of old sets go first, oldest set first
            unhealthy = rollout.replicas_of(rs) - rollout.available_of(rs)
            if budget > 0 and unhealthy > 0:
                n = min(budget, unhealthy)
                self._scale(key, d, rs, rollout.replicas_of(rs) - n)
                budget, scaled = budget - n, True
        if scaled:
            return True
        _, unavailable = rollout.fenceposts(d)
        spare = sum(rollout.available_of(rs) for rs in all_rs) - (d["spec"].get("replicas", 1) - unavailable)
        for rs in olds:
            if spare > 0 and rollout.replicas_of(rs) > 0:
                n = min(spare, rollout.replicas_of(rs))
                self._scale(key, d, rs, rollout.replicas_of(rs) - n)
                spare, scaled = spare - n, True
        return scaled

    def _recreate(self, key: str, d: dict, new_rs: dict | None, olds: list[dict]) -> bool:
        """Old sets to zero, wait for their pods to be gone, then the new set at full size."""
        active = [rs for rs in olds if rollout.replicas_of(rs) > 0]
        for rs in active:
            self._scale(key, d, rs, 0)
        if active or self._old_pods_running(olds):
            return bool(active)
        replicas = d["spec"].get("replicas", 1)
        if new_rs is None:
            self._create(key, d, olds, replicas)
            return True
        if rollout.replicas_of(new_rs) != replicas:
            self._scale(key, d, new_rs, replicas)
            return True
        return False

    def _old_pods_running(self, olds: list[dict]) -> bool:
        """Any old set still reporting replicas, or any of its pods not yet finished."""
        if not olds:
            return False
        if any((rs.get("status") or {}).get("replicas", 0) > 0 for rs in olds):
            return True
        uids = {rs["metadata"]["uid"] for rs in olds}
        return any((controller_of(p) or {}).get("uid") in uids and
                   (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
                   for p in self.in_namespace("Pod", olds[0]["metadata"]["namespace"]))

    # ---- writes --------------------------------------------------------------------------------
    def _begin(self, key: str) -> None:
        self.inflight[key] = self.inflight.get(key, 0) + 1

    def _end(self, key: str, failed: bool) -> None:
        self.inflight[key] -= 1
        if self.inflight[key] <= 0:
            self.inflight.pop(key, None)
            self.retry(key) if failed else (self.queue.add(key), self.kick())

    def _create(self, key: str, d: dict, olds: list[dict], replicas: int) -> None:
        collisions = (d.get("status") or {}).get("collisionCount")
        hash_ = rollout.template_hash(d["spec"]["template"], collisions)
        revision = max((rollout.revision_of(rs) for rs in olds), default=0) + 1
        rs = rollout.new_replicaset(d, hash_, revision, replicas)
        self._begin(key)

        def created(result) -> None:
            if isinstance(result, StatusError) and result.reason == "AlreadyExists":
                self._collided(key, d)
            if not isinstance(result, StatusError):
                self.created.add((d["metadata"]["namespace"], rs["metadata"]["name"]))
            if not isinstance(result, StatusError) and replicas:
                self.event(d, "ScalingReplicaSet", f"Scaled up replica set {rs['metadata']['name']} to {replicas} "
                                                   f"from 0")
            self._end(key, isinstance(result, StatusError))

        self.write({"verb": "create", "kind": "ReplicaSet", "namespace": d["metadata"]["namespace"], "object": rs},
                   created)

    def _bump_revision(self, key: str, new_rs: dict, olds: list[dict]) -> bool:
        """A template rolled back to: its set becomes the newest revision, the old number kept."""
        newest = max((rollout.revision_of(rs) for rs in olds), default=0)
        mine = rollout.revision_of(new_rs)
        if mine > newest:
            return False
        notes = dict(new_rs["metadata"].get("annotations") or {})
        history = [h for h in notes.get(rollout.REVISION_HISTORY, "").split(",") if h] + [str(mine)]
        notes.update({rollout.REVISION: str(newest + 1), rollout.REVISION_HISTORY: ",".join(history)})
        self._begin(key)
        self.write({"verb": "update", "kind": "ReplicaSet", "namespace": new_rs["metadata"]["namespace"],
                    "name": new_rs["metadata"]["name"], "resourceVersion": new_rs["metadata"]["resourceVersion"],
                    "object": {**new_rs, "metadata": {**new_rs["metadata"], "annotations": notes}}},
                   lambda r: self._end(key, isinstance(r, StatusError)))
        return True

    def _collided(self, key: str, d: dict) -> None:
        """A set with our name but another template: count the collision, hash again."""
        status = {**(d.get("status") or {}), "collisionCount": (d.get("status") or {}).get("collisionCount", 0) + 1}
        self._begin(key)
        self.write({"verb": "updateStatus", "kind": "Deployment", "namespace": d["metadata"]["namespace"],
                    "name": d["metadata"]["name"], "resourceVersion": d["metadata"]["resourceVersion"],
                    "object": {**d, "status": status}}, lambda r: self._end(key, isinstance(r, StatusError)))

    def _scale(self, key: str, d: dict, rs: dict, replicas: int) -> None:
        before = rollout.replicas_of(rs)
        surge, _ = rollout.fenceposts(d)
        notes = {**(rs["metadata"].get("annotations") or {}), rollout.DESIRED: str(d["spec"].get("replicas", 1)),
                 rollout.MAX_REPLICAS: str(d["spec"].get("replicas", 1) + surge)}
        obj = {**rs, "metadata": {**rs["metadata"], "annotations": notes}, "spec": {**rs["spec"], "replicas": replicas}}
        self._begin(key)

        def scaled(result) -> None:
            if not isinstance(result, StatusError):
                way = "up" if replicas > before else "down"
                self.event(d, "ScalingReplicaSet", f"Scaled {way} replica set {rs['metadata']['name']} to "
                                                   f"{replicas} from {before}")
            self._end(key, isinstance(result, StatusError))

        self.write({"verb": "update", "kind": "ReplicaSet", "namespace": rs["metadata"]["namespace"],
                    "name": rs["metadata"]["name"], "resourceVersion": rs["metadata"]["resourceVersion"],
                    "object": obj}, scaled)

    def _cleanup(self, key: str, d: dict, olds: list[dict]) -> None:
        """Keep revisionHistoryLimit old sets; delete the oldest empty ones beyond it."""
        limit = d["spec"].get("revisionHistoryLimit", 10)
        candidates = sorted((rs for rs in olds if not rs["metadata"].get("deletionTimestamp")), key=rollout.revision_of)
        for rs in candidates[:max(0, len(candidates) - limit)]:
            if rollout.replicas_of(rs) == 0 and (rs.get("status") or {}).get("replicas", 0) == 0:
                self.write({"verb": "delete", "kind": "ReplicaSet", "namespace": rs["metadata"]["namespace"],
                            "name": rs["metadata"]["name"], "options": {"preconditions": {"uid": rs["metadata"]["uid"]}}})

    def _status(self, key: str, d: dict, owned: list[dict], new_rs: dict | None) -> dict:
        status = rollout.calculate_status(d, owned, new_rs)
        made = new_rs is not None and (d["metadata"]["namespace"], new_rs["metadata"]["name"]) in self.created
        status["conditions"] = deployment_conditions(d, status, new_rs, time.time(), created_here=made)
        revision = str(rollout.revision_of(new_rs)) if new_rs else None
        notes = d["metadata"].get("annotations") or {}
        if revision and notes.get(rollout.REVISION) != revision:
            meta = {**d["metadata"], "annotations": {**notes, rollout.REVISION: revision}}
            self._begin(key)
            self.write({"verb": "update", "kind": "Deployment", "namespace": meta["namespace"], "name": meta["name"],
                        "resourceVersion": meta["resourceVersion"], "object": {**d, "metadata": meta}},
                       lambda r: self._end(key, isinstance(r, StatusError)))
            return status
        if status != (d.get("status") or {}):
            self.write({"verb": "updateStatus", "kind": "Deployment", "namespace": d["metadata"]["namespace"],
                        "name": d["metadata"]["name"], "resourceVersion": d["metadata"]["resourceVersion"],
                        "object": {**d, "status": status}},
                       lambda r: self.retry(key) if isinstance(r, StatusError) else None)
        deadline = next((c for c in status["conditions"] if c["type"] == "Progressing" and c["status"] == "True"
                         and c["reason"] != "NewReplicaSetAvailable"), None)
        if deadline is not None:  # look again when the progress deadline would pass
            self.queue.add_after(key, d["spec"].get("progressDeadlineSeconds", 600) + 1)
        return status

