"""The StatefulSet controller: for each StatefulSet, its history in ControllerRevisions (history.py),
then the Plan of stssync.py carried out through the apiserver — claims made before their pod, pods
created and deleted by ordinal, the claims' owners set by the retention policy, old revisions cleaned
and the status written, with the events of Kubernetes' stateful_pod_control.go. While a set's writes
are in flight its sync waits; when the last one is answered it runs again."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers import stssync
from actors.controllers.base import Controller
from actors.controllers.claims import claim, controller_of, matching
from actors.controllers.history import Recorder, construct, hash_of, to_clean
from actors.controllers.stspods import ordinal_of, revision_of
from api.status import StatusError
from runtime.cache import Delta

FINE = ("AlreadyExists", "NotFound")  # a write the cache had not shown yet


class StatefulSetController(Recorder, Controller):
    name = "controller.statefulset"
    kinds = ("statefulset", "pod", "controllerrevision", "persistentvolumeclaim")

    def __init__(self, settings, clock=time.time, **kw: Any):
        super().__init__(settings, **kw)
        self.clock = clock
        self.recording: set[str] = set()
        self.inflight: dict[str, int] = {}

    def on_active(self) -> None:
        super().on_active()
        self.recording, self.inflight = set(), {}

    # ---- which keys a change concerns --------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == "StatefulSet":
            return [f"{ns}/{meta['name']}"]
        if delta.kind == "PersistentVolumeClaim":
            return [f"{ns}/{s['metadata']['name']}" for s in self.in_namespace("StatefulSet", ns)
                    if any(meta["name"].startswith(f"{t['metadata']['name']}-{s['metadata']['name']}-")
                           for t in s["spec"].get("volumeClaimTemplates") or [])]
        owner = controller_of(delta.object)
        if owner is None:
            if delta.kind == "Pod" and delta.type != "DELETED":
                return [f"{ns}/{s['metadata']['name']}" for s in matching(self.in_namespace("StatefulSet", ns),
                                                                          delta.object)]
            return []
        return [f"{ns}/{owner['name']}"] if owner.get("kind") == "StatefulSet" else []

    # ---- reconcile -----------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        sts = self.get("StatefulSet", ns, name)
        if sts is None or sts["metadata"].get("deletionTimestamp") or key in self.recording or self.inflight.get(key):
            return
        pods = claim(sts, self.in_namespace("Pod", ns), self.set_owners,
                     adoptable=lambda p: ordinal_of(sts, p) is not None)
        revisions = claim(sts, self.in_namespace("ControllerRevision", ns), self.set_owners)
        history = construct(sts, revisions)
        if history.pending:
            self.record_history(key, sts, history)
            return
        current_name = (sts.get("status") or {}).get("currentRevision")
        current = next((r for r in revisions if r["metadata"]["name"] == current_name), history.current)
        now = self.clock()
        claims = {c["metadata"]["name"]: c for c in self.in_namespace("PersistentVolumeClaim", ns)}
        plan = stssync.sync(sts, pods, claims, stssync.Revisions(current, history.current), now)
        if plan.requeue_after is not None:
            self.queue.add_after(key, plan.requeue_after)
        self._carry_out(key, sts, plan)
        if not plan.writes:
            live = {revision_of(p) for p in pods} | {current["metadata"]["name"], history.current["metadata"]["name"]}
            live_hashes = {hash_of(r) for r in revisions if r["metadata"]["name"] in live}
            for revision in to_clean(sts, history.old, live_hashes) + history.duplicates:
                self._delete_object(revision)
        self._write_status(key, sts, plan.status)

    def _carry_out(self, key: str, sts: dict, plan: stssync.Plan) -> None:
        """Claims first and the pods once every claim is answered; deletions and owner changes at once."""
        writes = len(plan.create_claims) + len(plan.create_pods) + len(plan.delete_pods) + len(plan.claim_owners)
        if not writes:
            return
        self.inflight[key] = writes
        claims_left = {"n": len(plan.create_claims), "failed": False}

        def claim_made(pod_of_claim: str):
            def done(result) -> None:
                claims_left["n"] -= 1
                claims_left["failed"] |= isinstance(result, StatusError) and result.reason not in FINE
                if claims_left["n"] == 0 and claims_left["failed"]:  # no pod without its storage
                    for _ in plan.create_pods:
                        self._answered(key, sts, None, "", "")
                elif claims_left["n"] == 0:
                    self._create_pods(key, sts, plan.create_pods)
                self._answered(key, sts, result, "create Claim", pod_of_claim)
            return done

        for made in plan.create_claims:
            pod = next((p["metadata"]["name"] for p in plan.create_pods
                        if made["metadata"]["name"].endswith("-" + p["metadata"]["name"])), None)
            self.write({"verb": "create", "kind": "PersistentVolumeClaim", "namespace": made["metadata"]["namespace"],
                        "object": made}, claim_made(pod or made["metadata"]["name"]))
        if not plan.create_claims:
            self._create_pods(key, sts, plan.create_pods)
        for pod in plan.delete_pods:
            meta = pod["metadata"]
            self.write({"verb": "delete", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                        "options": {"preconditions": {"uid": meta["uid"]}}},
                       lambda r, n=meta["name"]: self._answered(key, sts, r, "delete Pod", n))
        for made, refs in plan.claim_owners:
            meta = made["metadata"]
            self.write({"verb": "patch", "kind": "PersistentVolumeClaim", "namespace": meta["namespace"],
                        "name": meta["name"], "object": {"metadata": {"ownerReferences": refs}}},
                       lambda r: self._answered(key, sts, r, "", ""))

    def _create_pods(self, key: str, sts: dict, pods: list[dict]) -> None:
        for pod in pods:
            self.write({"verb": "create", "kind": "Pod", "namespace": pod["metadata"]["namespace"], "object": pod},
                       lambda r, n=pod["metadata"]["name"]: self._answered(key, sts, r, "create Pod", n))

    def _answered(self, key: str, sts: dict, result, what: str, name: str) -> None:
        """One write answered: its event (stateful_pod_control.go's wording); the last one runs the sync again."""
        set_name = sts["metadata"]["name"]
        verb, _, noun = what.partition(" ")
        if isinstance(result, StatusError) and result.reason not in FINE:
            if what:
                self.event(sts, f"Failed{verb.capitalize()}",
                           f"{what} {name} in StatefulSet {set_name} failed error: {result.message}", "Warning")
            self.retry(key)
        elif not isinstance(result, StatusError) and what == "create Claim":
            self.event(sts, "SuccessfulCreate",
                       f"create Claim {result['metadata']['name']} Pod {name} in StatefulSet {set_name} success")
        elif not isinstance(result, StatusError) and what:
            self.event(sts, f"Successful{verb.capitalize()}", f"{what} {name} in StatefulSet {set_name} successful")
        self.inflight[key] = self.inflight.get(key, 1) - 1
        if self.inflight[key] <= 0:
            self.inflight.pop(key, None)
            self.queue.add(key)
            self.kick()

    def _delete_object(self, obj: dict) -> None:
        meta = obj["metadata"]
        self.write({"verb": "delete", "kind": obj["kind"], "namespace": meta["namespace"], "name": meta["name"],
                    "options": {"preconditions": {"uid": meta["uid"]}}})

    def _write_status(self, key: str, sts: dict, status: dict) -> None:
        if status == (sts.get("status") or {}):
            return
        self.write({"verb": "updateStatus", "kind": "StatefulSet", "namespace": sts["metadata"]["namespace"],
                    "name": sts["metadata"]["name"], "resourceVersion": sts["metadata"]["resourceVersion"],
                    "object": {**sts, "status": status}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) else None)

