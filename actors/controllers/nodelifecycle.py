"""The node lifecycle controller: a node whose Lease (or Ready heartbeat) goes quiet past the grace
period becomes Ready=Unknown; NoExecute taints follow Ready at the per-zone eviction rate; the taint
eviction part deletes pods once their tolerations run out."""
from __future__ import annotations

import time
from typing import Any

from actors.controllers import nodehealth
from actors.controllers.base import Controller
from api.times import now as now_rfc3339
from api.times import seconds as _stamp_seconds
from runtime.cache import Delta

PRESSURES = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")


class NodeLifecycleController(Controller):
    name = "controller.nodelifecycle"
    kinds = ("node", "lease", "pod")

    def __init__(self, settings, grace: float = 50.0, startup_grace: float = 60.0, period: float = 5.0,
                 rates: nodehealth.Rates | None = None, **kw: Any):
        super().__init__(settings, **kw)
        self.grace, self.startup_grace, self.period = grace, startup_grace, period
        self.rates = rates or nodehealth.Rates()
        self.probed: dict[str, float] = {}  # node -> when it last showed a heartbeat (monotonic)
        self.seen_beat: dict[str, tuple[float, float]] = {}  # node -> (lease renew, ready heartbeat)
        self.tokens: dict[str, tuple[float, float]] = {}  # zone -> (tokens, refilled at)
        self.evictions: dict[str, float] = {}  # pod uid -> when to delete it
        self._ticking = False

    def on_synced(self) -> None:
        super().on_synced()
        if not self._ticking:
            self._ticking = True
            self.every(self.period, self.monitor)

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        if delta.kind == "Node":
            self._heard(meta["name"], None, delta.object)
            return [f"node/{meta['name']}"]
        if delta.kind == "Lease" and meta.get("namespace") == "kube-node-lease":
            self._heard(meta["name"], delta.object, None)
            return []
        node = (delta.object.get("spec") or {}).get("nodeName")
        return [f"node/{node}"] if node and delta.type != "DELETED" else []

    def _heard(self, node: str, lease: dict | None, obj: dict | None) -> None:
        """probeTimestamp moves when the Lease's renewTime goes up or Ready's heartbeat changes."""
        renew, beat = self.seen_beat.get(node, (0.0, 0.0))
        if lease is not None:
            renew = max(renew, _stamp_seconds((lease.get("spec") or {}).get("renewTime")))
        if obj is not None:
            ready = next((c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == "Ready"), {})
            beat = _stamp_seconds(ready.get("lastHeartbeatTime"))
        if (renew, beat) != self.seen_beat.get(node) or node not in self.probed:
            self.probed[node] = time.monotonic()
        self.seen_beat[node] = (renew, beat)

    # ---- monitoring ----------------------------------------------------------------------------
    def monitor(self) -> None:
        """Every period: nodes past their grace become Unknown; taints and evictions follow."""
        now = time.monotonic()
        for node in list(self.objects.get("Node", {}).values()):
            name = node["metadata"]["name"]
            ever_ready = any(c["type"] == "Ready" for c in (node.get("status") or {}).get("conditions") or [])
            grace = self.grace if ever_ready else self.startup_grace
            if now - self.probed.get(name, now) > grace and nodehealth.ready_status(node) != "Unknown":
                self._mark_unknown(node, ever_ready)
            self.queue.add(f"node/{name}")
        self.kick()

    def _mark_unknown(self, node: dict, ever_ready: bool) -> None:
        stamp = now_rfc3339()
        reason, message = ("NodeStatusUnknown", "Kubelet stopped posting node status.") if ever_ready else \
            ("NodeStatusNeverUpdated", "Kubelet never posted node status.")
        conditions = []
        for c in (node.get("status") or {}).get("conditions") or []:
            if c["type"] in PRESSURES:
                c = {**c, "status": "Unknown", "reason": reason, "message": message, "lastTransitionTime": stamp}
            conditions.append(c)
        self.log.info("nodelifecycle.unknown", node=node["metadata"]["name"], rev=node["metadata"]["resourceVersion"])
        self.write({"verb": "updateStatus", "kind": "Node", "name": node["metadata"]["name"],
                    "object": {**node, "status": {**node["status"], "conditions": conditions}}})
        self.event(node, "NodeNotReady", f"Node {node['metadata']['name']} status is now: NodeNotReady")
        for pod in self._pods_on(node["metadata"]["name"]):  # MarkPodsNotReady
            conds = [{**c, "status": "False"} if c.get("type") == "Ready" else c
                     for c in (pod.get("status") or {}).get("conditions") or []]
            self.write({"verb": "patch", "kind": "Pod", "namespace": pod["metadata"]["namespace"],
                        "name": pod["metadata"]["name"], "object": {"status": {"conditions": conds}},
                        "options": {"subresource": "status"}})

    def _pods_on(self, node: str) -> list[dict]:
        return [p for p in self.objects.get("Pod", {}).values() if p["spec"].get("nodeName") == node]

    # ---- taints and evictions ------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        node = self.get("Node", "", key.split("/", 1)[1])
        if node is None:
            return
        taints = list((node.get("spec") or {}).get("taints") or [])
        wanted = self._wanted_taints(node, taints)
        if wanted != taints:
            self.write({"verb": "update", "kind": "Node", "name": node["metadata"]["name"],
                        "resourceVersion": node["metadata"]["resourceVersion"],
                        "object": {**node, "spec": {**(node.get("spec") or {}), "taints": wanted}}},
                       lambda r: None)
        self._evict(node, [t for t in taints if t.get("effect") == "NoExecute"])

    def _wanted_taints(self, node: dict, taints: list[dict]) -> list[dict]:
        managed = {nodehealth.UNREACHABLE, nodehealth.NOT_READY} | set(nodehealth.CONDITION_TAINTS.values())
        keep = [t for t in taints if t["key"] not in managed]
        have = {(t["key"], t["effect"]): t for t in taints if t["key"] in managed}
        out = keep + [have.get((k, "NoSchedule"), {"key": k, "effect": "NoSchedule"})
                      for k in sorted(nodehealth.wanted_noschedule(node))]
        ready = nodehealth.ready_status(node)
        noexecute = {"False": nodehealth.NOT_READY, "Unknown": nodehealth.UNREACHABLE}.get(ready)
        if noexecute and not self._all_zones_down():
            current = have.get((noexecute, "NoExecute"))
            if current is None and self._take_token(node):
                current = {"key": noexecute, "effect": "NoExecute", "timeAdded": now_rfc3339()}
            if current is not None:
                out.append(current)
        return out

    def _all_zones_down(self) -> bool:
        zones: dict[str, list[str]] = {}
        for n in self.objects.get("Node", {}).values():
            zones.setdefault(nodehealth.zone_of(n), []).append(nodehealth.ready_status(n))
        return bool(zones) and all(nodehealth.zone_state(r) == "FullDisruption" for r in zones.values())

    def _take_token(self, node: dict) -> bool:
        """The per-zone rate limiter on tainting (0.1 nodes/s in a healthy zone)."""
        zone = nodehealth.zone_of(node)
        members = [nodehealth.ready_status(n) for n in self.objects.get("Node", {}).values()
                   if nodehealth.zone_of(n) == zone]
        qps = self.rates.qps(nodehealth.zone_state(members), len(members))
        tokens, at = self.tokens.get(zone, (1.0, time.monotonic()))
        now = time.monotonic()
        tokens = min(1.0, tokens + (now - at) * qps)
        if tokens < 1.0:
            self.tokens[zone] = (tokens, now)
            self.queue.add_after(f"node/{node['metadata']['name']}", (1.0 - tokens) / qps if qps else self.period)
            return False
        self.tokens[zone] = (tokens - 1.0, now)
        return True

    def _evict(self, node: dict, noexecute: list[dict]) -> None:
        now = time.time()
        for pod in self._pods_on(node["metadata"]["name"]):
            uid = pod["metadata"]["uid"]
            delay = nodehealth.eviction_delay(pod, noexecute) if noexecute else None
            if delay is None or pod["metadata"].get("deletionTimestamp"):
                self.evictions.pop(uid, None)
                continue
            added = min((_stamp_seconds(t.get("timeAdded")) or now for t in noexecute), default=now)
            due = self.evictions.setdefault(uid, added + delay)
            if now >= due:
                self._delete_pod(pod)
            else:
                self.queue.add_after(f"node/{node['metadata']['name']}", due - now)

    def _delete_pod(self, pod: dict) -> None:
        meta = pod["metadata"]
        self.evictions.pop(meta["uid"], None)
        conds = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") != "DisruptionTarget"]
        conds.append({"type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager",
                      "message": "Taint manager: deleting due to NoExecute taint", "lastTransitionTime": now_rfc3339()})
        self.log.info("nodelifecycle.evicting", pod=f"{meta['namespace']}/{meta['name']}", node=pod["spec"]["nodeName"])
        self.write({"verb": "patch", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                    "object": {"status": {"conditions": conds}}, "options": {"subresource": "status"}})
        self.write({"verb": "delete", "kind": "Pod", "namespace": meta["namespace"], "name": meta["name"],
                    "options": {"preconditions": {"uid": meta["uid"]}}})
        self.event({"apiVersion": "v1", "kind": "Pod", **pod}, "TaintManagerEviction",
                   f"Marking for deletion Pod {meta['namespace']}/{meta['name']}")
