"""The CronJob controller (Kubernetes' cronjob_controllerv2): for each CronJob, the Jobs it controls
(by controller reference) and the Plan of cronjobsync.py carried out through the apiserver — Jobs
deleted (Replace, history limits; background propagation), the Job of the latest unmet scheduled
time created, the status written with it in `active` and `lastScheduleTime`; then a timer at the
next scheduled time (+100 ms), not polling.

Its clock is injected; `time_scale` > 1 makes it read time faster than the wall clock (a test's
`*/1 * * * *` fires every second at 60) — its timers shrink by the same factor."""
from __future__ import annotations

import time
from datetime import timezone, tzinfo
from typing import Any, Callable

from actors.controllers import cronjobsync
from actors.controllers.base import Controller
from actors.controllers.claims import controller_of
from api.status import StatusError
from api.times import rfc3339
from runtime.cache import Delta


class ScaledClock:
    """Wall time, `scale` times faster from the moment it is made."""

    def __init__(self, scale: float = 1.0, wall: Callable[[], float] = time.time):
        self.scale, self.wall, self.start = scale, wall, wall()

    def __call__(self) -> float:
        return self.start + (self.wall() - self.start) * self.scale


class CronJobController(Controller):
    name = "controller.cronjob"
    kinds = ("cronjob", "job")

    def __init__(self, settings, clock: Callable[[], float] = time.time, time_scale: float = 1.0,
                 zone: tzinfo = timezone.utc, **kw: Any):
        super().__init__(settings, **kw)
        self.time_scale = time_scale
        self.clock = clock if time_scale == 1.0 else ScaledClock(time_scale)
        self.zone = zone  # the zone of a CronJob without spec.timeZone (kube-controller-manager's local zone)
        self.writing: set[str] = set()  # keys whose create and status write are out
        self.written: dict[str, int] = {}  # key -> the resourceVersion of our last status write

    def on_active(self) -> None:
        super().on_active()
        self.writing, self.written = set(), {}

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        ns = meta.get("namespace", "")
        if delta.kind == "CronJob":
            if delta.type == "DELETED":
                self.written.pop(f"{ns}/{meta['name']}", None)
                return []
            return [f"{ns}/{meta['name']}"]
        owner = controller_of(delta.object)
        return [f"{ns}/{owner['name']}"] if owner and owner.get("kind") == "CronJob" else []

    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        cj = self.get("CronJob", ns, name)
        if cj is None or key in self.writing or int(cj["metadata"]["resourceVersion"]) < self.written.get(key, 0):
            return  # a pass is out, or the cache has not yet seen the status it wrote (its event requeues)
        uid = cj["metadata"]["uid"]
        jobs = [j for j in self.in_namespace("Job", ns) if (controller_of(j) or {}).get("uid") == uid]
        plan = cronjobsync.sync(cj, jobs, self.clock(), self.zone)
        for type_, reason, message in plan.events:
            self.event(cj, reason, message, type_)
        for job in plan.delete:
            self._delete(cj, job)
        if plan.requeue_after is not None:
            self.queue.add_after(key, plan.requeue_after / self.time_scale)
        if plan.create is None:
            self._write_status(cj, key, plan.status)
            return
        self.writing.add(key)
        self.write({"verb": "create", "kind": "Job", "namespace": ns, "object": plan.create},
                   lambda result: self._created(cj, key, plan, result))

    def _created(self, cj: dict, key: str, plan: cronjobsync.Plan, result: dict | StatusError) -> None:
        status, meta = plan.status, plan.create["metadata"]
        if isinstance(result, StatusError):
            existing = self.get("Job", meta["namespace"], meta["name"])
            if result.reason != "AlreadyExists" or existing is None or \
                    (controller_of(existing) or {}).get("uid") != cj["metadata"]["uid"]:
                if result.reason != "AlreadyExists":
                    self.event(cj, "FailedCreate", f"Error creating job: {result.message}", "Warning")
                self.writing.discard(key)
                self._write_status(cj, key, status)
                self.retry(key)
                return
            result = existing  # ours, made by an earlier pass whose status write was lost: record it
        else:
            self.event(cj, "SuccessfulCreate", f"Created job {result['metadata']['name']}")
        status["active"] = (status.get("active") or []) + [cronjobsync.job_ref(result)]
        status["lastScheduleTime"] = rfc3339(plan.scheduled)
        self._write_status(cj, key, status, lambda: self.writing.discard(key))

    def _write_status(self, cj: dict, key: str, status: dict, then: Callable[[], None] = lambda: None) -> None:
        if status == (cj.get("status") or {}):
            then()
            return
        meta = cj["metadata"]

        def written(result) -> None:
            then()
            if isinstance(result, StatusError):
                self.retry(key)
            else:
                self.written[key] = int(result["metadata"]["resourceVersion"])
                self.kick()

        self.write({"verb": "updateStatus", "kind": "CronJob", "namespace": meta["namespace"], "name": meta["name"],
                    "resourceVersion": meta["resourceVersion"], "object": {**cj, "status": status}}, written)

    def _delete(self, cj: dict, job: dict) -> None:
        meta = job["metadata"]

        def deleted(result) -> None:
            if isinstance(result, StatusError):
                if result.reason != "NotFound":
                    self.event(cj, "FailedDelete", f"Deleted job: {result.message}", "Warning")
            else:
                self.event(cj, "SuccessfulDelete", f"Deleted job {meta['name']}")

        self.write({"verb": "delete", "kind": "Job", "namespace": meta["namespace"], "name": meta["name"],
                    "options": {"propagationPolicy": "Background", "preconditions": {"uid": meta["uid"]}}}, deleted)
