"""The HorizontalPodAutoscaler controller (Kubernetes' pkg/controller/podautoscaler): every sync period each
HPA's target scale (a Deployment's, ReplicaSet's, StatefulSet's or ReplicationController's spec.replicas and
selector), its pods and their resource metrics (PodMetrics of `metrics.k8s.io`, asked through the apiserver) go
to the pure decisions of hpasync.py; a new size is written to the target (the bus has no `/scale` subresource: a merge
patch of spec.replicas, the scale's one field), then the HPA's status. The recommendations and rescales the
windows and policies need are kept in memory, as kube-controller-manager keeps them."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers import hpasync
from actors.controllers.base import Controller
from actors.controllers.hpareplicas import Sample
from api import quantity, selectors
from api.autoscaling import ABLE_TO_SCALE
from api.printers.workloads import selector_text
from api.registry import lookup
from api.status import StatusError
from api.times import seconds
from bus.rpc import unwrap
from runtime.cache import Delta

HPA = "HorizontalPodAutoscaler"
SCALABLE = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")


class HorizontalPodAutoscalerController(Controller):
    name = "controller.hpa"
    kinds = ("horizontalpodautoscaler", "deployment", "replicaset", "statefulset", "replicationcontroller", "pod")

    def __init__(self, settings, clock=time.time, **kw: Any):
        super().__init__(settings, **kw)
        self.clock = clock
        self.period = settings.hpa_sync_period_s
        self.memory: dict[str, hpasync.Memory] = {}

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        key = f"{meta.get('namespace', '')}/{meta['name']}"
        if delta.kind != HPA:
            return []  # a target or a pod changes: the next sync sees it, as horizontal.go's resync does
        if delta.type == "DELETED":
            self.memory.pop(key, None)
            return []
        return [key]

    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        hpa = self.get(HPA, ns, name)
        if hpa is None or hpa["metadata"].get("deletionTimestamp"):
            return
        self.queue.add_after(key, self.period)
        ref = hpa["spec"].get("scaleTargetRef") or {}
        target = self.get(ref.get("kind", ""), ns, ref.get("name", "")) if ref.get("kind") in SCALABLE else None
        if target is None:
            return self._no_scale(hpa, ref)
        selector = (target.get("spec") or {}).get("selector")
        text = ",".join(f"{k}={v}" for k, v in sorted((selector or {}).items())) \
            if ref["kind"] == "ReplicationController" else selector_text(selector)
        pods = [p for p in self.in_namespace("Pod", ns)
                if selectors.parse(text).matches(p["metadata"].get("labels") or {})] if text else []
        # not retried: with no metrics actor the apiserver answers 503 at once, and the sync reports it (as
        # horizontal.go does) instead of asking again for the request's whole timeout
        self.ask({"verb": "list", "kind": "PodMetrics", "namespace": ns, "options": {"labelSelector": text}},
                 lambda reply: self._decide(key, target, pods, _samples(reply)), retry=False)

    def _decide(self, key: str, target: dict, pods: list[dict], samples: dict[str, dict[str, Sample]] | str) -> None:
        ns, name = key.split("/", 1)
        hpa = self.get(HPA, ns, name)
        if hpa is None:
            return
        spec = target.get("spec") or {}
        scale = {"spec": {"replicas": spec.get("replicas", 1)}, "status": (target.get("status") or {})}
        memory = self.memory.setdefault(key, hpasync.Memory())
        decision = hpasync.decide(hpa, scale, pods, samples, self.clock(), memory,
                                  down_window=self.settings.hpa_downscale_window_s,
                                  tolerance=self.settings.hpa_tolerance)
        for type_, reason, message in decision.events:
            self.event(hpa, reason, message, type_)
        if decision.rescale:
            meta = target["metadata"]
            self.write({"verb": "patch", "kind": target.get("kind") or _kind_of(hpa), "namespace": ns,
                        "name": meta["name"], "options": {"patchType": "merge"},
                        "object": {"spec": {"replicas": decision.desired}}},
                       lambda r: self._rescaled(key, hpa, decision, r))
        else:
            self._status(key, hpa, decision.status)

    def event(self, obj: dict, reason: str, message: str, type_: str = "Normal") -> None:
        self.record(obj, reason, message, type_, "horizontal-pod-autoscaler")  # Kubernetes' component name

    def _rescaled(self, key: str, hpa: dict, decision: hpasync.Decision, reply) -> None:
        if isinstance(reply, StatusError):
            message = f"the HPA controller was unable to update the target scale: {reply.message}"
            self.event(hpa, "FailedRescale", f"New size: {decision.desired}; error: {reply.message}", "Warning")
            hpasync.condition(decision.status, ABLE_TO_SCALE, "False", "FailedUpdateScale", message, self.clock())
            decision.status.pop("lastScaleTime", None)
        self._status(key, hpa, decision.status)

    def _no_scale(self, hpa: dict, ref: dict) -> None:
        try:
            resource = lookup(ref.get("kind", "")).resource
        except StatusError:
            resource = (ref.get("kind") or "").lower()
        message = f'{resource} "{ref.get("name", "")}" not found'
        self.event(hpa, "FailedGetScale", message, "Warning")
        status = {**(hpa.get("status") or {}), "conditions": [dict(c) for c in (hpa.get("status") or {})
                                                                .get("conditions") or []]}
        hpasync.condition(status, ABLE_TO_SCALE, "False", "FailedGetScale",
                          f"the HPA controller was unable to get the target's current scale: {message}", self.clock())
        status.setdefault("desiredReplicas", 0)
        meta = hpa["metadata"]
        self._status(f"{meta['namespace']}/{meta['name']}", hpa, status)

    def _status(self, key: str, hpa: dict, status: dict) -> None:
        if _same(hpa.get("status") or {}, status):
            return
        meta = hpa["metadata"]
        self.write({"verb": "updateStatus", "kind": HPA, "namespace": meta["namespace"], "name": meta["name"],
                    "resourceVersion": meta["resourceVersion"], "object": {**hpa, "status": status}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) and r.reason == "Conflict" else None)


def _samples(reply) -> dict[str, dict[str, Sample]] | str:
    """PodMetrics by pod name: each resource summed over the containers, in milli-units (cpu millicores;
    memory bytes × 1000, as PodMetric values keep them); the refusal's message when there are none."""
    try:
        reply = unwrap(reply)
    except StatusError as exc:
        return exc.message
    found = {}
    for item in reply["items"]:
        usage: dict[str, int] = {}  # `cpu` over the pod's containers; `<container>/cpu` each (ContainerResource)
        for container in item.get("containers") or []:
            for resource, amount in (container.get("usage") or {}).items():
                usage[resource] = usage.get(resource, 0) + quantity.milli(amount)
                usage[f"{container['name']}/{resource}"] = quantity.milli(amount)
        window = float(str(item.get("window", "15s")).rstrip("s") or 15)
        found[item["metadata"]["name"]] = {r: Sample(v, seconds(item.get("timestamp")), window)
                                           for r, v in usage.items()}
    return found


def _kind_of(hpa: dict) -> str:
    return (hpa["spec"].get("scaleTargetRef") or {}).get("kind", "")


def _same(old: dict, new: dict) -> bool:
    def strip(status: dict) -> dict:
        return {**{k: v for k, v in status.items() if v not in (None, [], {})},
                "conditions": [{k: v for k, v in c.items() if k != "lastTransitionTime"}
                               for c in status.get("conditions") or []]}
    return strip(old) == strip(new)
