"""The TTL-after-finished controller (Kubernetes' pkg/controller/ttlafterfinished): a finished Job
with `ttlSecondsAfterFinished` is deleted that many seconds after it finished — foreground, so its
pods go first, and with a UID precondition, so a new Job of the same name is never taken for it."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers.base import Controller
from api import batch
from api.status import StatusError
from api.times import seconds
from runtime.cache import Delta


def finished_at(job: dict) -> float | None:
    """When the Job finished: its terminal condition's transition (Kubernetes' jobFinishTime)."""
    type_ = batch.finished(job)
    if type_ is None:
        return None
    stamp = batch.condition(job, type_).get("lastTransitionTime")
    return seconds(stamp) if stamp else None


def expires_in(job: dict, now: float) -> float | None:
    """Seconds until the Job may be deleted (<= 0: now); None when it never expires (yet)."""
    ttl = job["spec"].get("ttlSecondsAfterFinished")
    finish = finished_at(job)
    if ttl is None or finish is None or job["metadata"].get("deletionTimestamp"):
        return None
    return finish + ttl - now


class TTLAfterFinishedController(Controller):
    name = "controller.ttlafterfinished"
    kinds = ("job",)

    def __init__(self, settings, clock=time.time, **kw: Any):
        super().__init__(settings, **kw)
        self.clock = clock

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        return [] if delta.type == "DELETED" else [f"{meta.get('namespace', '')}/{meta['name']}"]

    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        job = self.get("Job", ns, name)
        left = None if job is None else expires_in(job, self.clock())
        if left is None:
            return
        if left > 0:
            self.queue.add_after(key, left + 0.1)
            return
        self.log.info("ttl.deleting", job=key, ttl=job["spec"]["ttlSecondsAfterFinished"])
        self.write({"verb": "delete", "kind": "Job", "namespace": ns, "name": name,
                    "options": {"propagationPolicy": "Foreground",
                                "preconditions": {"uid": job["metadata"]["uid"]}}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) and r.reason != "NotFound" else None)
