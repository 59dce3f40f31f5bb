"""The Job controller: for each Job, the pods it controls (by ownerReference and selector), the Plan of
jobsync.py carried out through the apiserver — pods created from the template (Indexed: the index
annotation, label, env and hostname) with the tracking finalizer, the status written, counted pods'
finalizers removed, surplus pods deleted; a pod whose Job is gone loses the finalizer."""
from __future__ import annotations

import copy
import time
from typing import Any

from actors.controllers import jobsync
from actors.controllers.jobpods import tracked
from actors.controllers.base import Controller
from actors.controllers.claims import claim, controller_of, controller_ref
from actors.controllers.expectations import Expectations
from actors.controllers.slowstart import SlowStart
from api import batch
from api.status import StatusError
from runtime.cache import Delta

ORPHAN = "pod:"  # the key of a pod whose Job is gone and that still carries the finalizer
BURST = 500


class JobController(SlowStart, Controller):
    name = "controller.job"
    kinds = ("job", "pod")

    def __init__(self, settings, clock=time.time, **kw: Any):
        super().__init__(settings, **kw)
        self.clock = clock
        self.expectations = Expectations(time.monotonic)

    def on_active(self) -> None:
        super().on_active()
        self.expectations = Expectations(time.monotonic)

    # ---- which keys a change concerns --------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == "Job":
            key = f"{ns}/{meta['name']}"
            if delta.type == "DELETED":
                self.expectations.forget(key)
            return [key]
        owner = controller_of(delta.object)
        if owner is None or owner.get("kind") != "Job":
            return []
        key = f"{ns}/{owner['name']}"
        if delta.type == "ADDED" and not delta.synthetic:
            self.expectations.created(key)
        if delta.type == "DELETED" or meta.get("deletionTimestamp"):
            self.expectations.deleted(key, meta["uid"])
        keys = [key]
        job = self.get("Job", ns, owner["name"])
        if delta.type != "DELETED" and tracked(delta.object) and \
                (job is None or job["metadata"]["uid"] != owner.get("uid")):
            keys.append(f"{ORPHAN}{ns}/{meta['name']}")
        return keys

    # ---- reconcile -----------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        if key.startswith(ORPHAN):
            ns, name = key[len(ORPHAN):].split("/", 1)
            pod = self.get("Pod", ns, name)
            if pod is not None and tracked(pod):
                self._untrack(pod)
            return
        ns, name = key.split("/", 1)
        job = self.get("Job", ns, name)
        if job is None or job["spec"].get("managedBy", batch.MANAGED_BY) != batch.MANAGED_BY:
            return  # another controller manages it (spec.managedBy)
        pods = claim(job, self.in_namespace("Pod", ns), self.set_owners)
        if job["metadata"].get("deletionTimestamp"):
            for pod in pods:
                if tracked(pod):
                    self._untrack(pod)
            return
        if not self.expectations.satisfied(key):
            return
        plan = jobsync.sync(job, pods, self.clock())
        for type_, reason, message in plan.events:
            self.event(job, reason, message, type_)
        if plan.requeue_after is not None:
            self.queue.add_after(key, plan.requeue_after + 0.1)
        self._create(job, key, plan.create[:BURST], plan.index_failures)
        self._delete(job, key, plan.delete[:BURST])
        self._write_status(job, key, plan)

    # ---- writing -------------------------------------------------------------------------------
    def _write_status(self, job: dict, key: str, plan: jobsync.Plan) -> None:
        """The status first, then the finalizers of the pods it now counts (a pod is never lost)."""
        def written(result) -> None:
            if isinstance(result, StatusError):
                self.retry(key)
                return
            for pod in plan.untrack:
                self._untrack(pod)

        if plan.status == (job.get("status") or {}):
            written(None)
            return
        self.write({"verb": "updateStatus", "kind": "Job", "namespace": job["metadata"]["namespace"],
                    "name": job["metadata"]["name"], "resourceVersion": job["metadata"]["resourceVersion"],
                    "object": {**job, "status": plan.status}}, written)

    def _untrack(self, pod: dict, then=lambda: None) -> None:
        """The tracking finalizer off (`$deleteFromPrimitiveList`, as Kubernetes' job controller patches it)."""
        meta = pod["metadata"]
        owner = controller_of(pod)
        key = f"{meta['namespace']}/{owner['name']}" if owner else f"{ORPHAN}{meta['namespace']}/{meta['name']}"
        self.write({"verb": "patch", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                    "object": {"metadata": {"$deleteFromPrimitiveList/finalizers": [batch.TRACKING_FINALIZER]}},
                    "options": {"patchType": "strategic"}},
                   lambda r: (self.retry(key) if r.reason != "NotFound" else None) if isinstance(r, StatusError)
                   else then())

    def _create(self, job: dict, key: str, indexes: list[int | None], failures: dict[int, int]) -> None:
        if indexes:
            self.expectations.expect(key, adds=len(indexes))
            self.create_slowly(key, job, [pod_for(job, index, failures.get(index, 0) if index is not None else 0)
                                         for index in indexes])

    def _delete(self, job: dict, key: str, pods: list[dict]) -> None:
        """Finalizer off, then delete: pods the controller removes are not failures."""
        if not pods:
            return
        self.expectations.expect(key, deletes={p["metadata"]["uid"] for p in pods})
        for pod in pods:
            meta = pod["metadata"]

            def deleted(result, meta=meta) -> None:
                if isinstance(result, StatusError):
                    self.expectations.deleted(key, meta["uid"])
                    if result.reason != "NotFound":
                        self.retry(key)
                else:
                    self.event(job, "SuccessfulDelete", f"Deleted pod: {meta['name']}")

            def delete(meta=meta) -> None:
                self.write({"verb": "delete", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                            "options": {"preconditions": {"uid": meta["uid"]}}}, deleted)

            if tracked(pod):
                self._untrack(pod, delete)
            else:
                delete()


def pod_for(job: dict, index: int | None, failures: int = 0) -> dict:
    """A pod from the Job's template: the controller reference, the tracking finalizer; in Indexed
    mode the completion index as annotation, label, JOB_COMPLETION_INDEX and hostname `<job>-<i>`, and
    with backoffLimitPerIndex the index's failures so far."""
    template = copy.deepcopy(job["spec"].get("template") or {})
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    name = job["metadata"]["name"]
    labels, annotations = dict(meta.get("labels") or {}), dict(meta.get("annotations") or {})
    prefix = f"{name}-"
    if index is not None:
        labels[batch.COMPLETION_INDEX] = annotations[batch.COMPLETION_INDEX] = str(index)
        prefix = f"{name}-{index}-"
        if job["spec"].get("backoffLimitPerIndex") is not None:
            annotations[batch.INDEX_FAILURE_COUNT] = str(failures)
        spec.setdefault("hostname", f"{name}-{index}")
        env = {"name": batch.INDEX_ENV, "valueFrom": {"fieldRef": {
            "fieldPath": f"metadata.labels['{batch.COMPLETION_INDEX}']"}}}
        for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
            container["env"] = [e for e in container.get("env") or [] if e.get("name") != batch.INDEX_ENV] + [env]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": prefix, "namespace": job["metadata"]["namespace"], "labels": labels,
                         "annotations": annotations, "finalizers": [batch.TRACKING_FINALIZER],
                         "ownerReferences": [controller_ref(job)]},
            "spec": spec}
