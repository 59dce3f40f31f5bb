"""The scheduler actor: watches pods, nodes and ReplicaSets through its local cache, takes every pod
without a node, picks one the way kube-scheduler does, assumes it and binds asynchronously."""
from __future__ import annotations

from typing import Any, Callable

from actors.scheduler import preemption, reporting
from actors.scheduler.framework import Context, Decision, Framework
from actors.scheduler.plugins.volumebinding import StorageView, selections
from actors.scheduler.nodes import NodeTable
from actors.scheduler.podinfo import PodInfo, pod_info
from actors.scheduler.profiles import build_all
from actors.scheduler.queue import QueuedPod, SchedulingQueue
from api.status import StatusError
from bus.declare import QueueSpec
from bus.rpc import unwrap
from config.scheduler import SchedulerConfiguration
from config.settings import Settings
from runtime import metrics
from runtime.actor import Actor
from runtime.cache import Delta
from runtime.slices import SlicedLoop

STORAGE_KINDS = ("persistentvolumeclaim", "persistentvolume", "storageclass")
ASSUME_TTL_S = 30.0
EXPIRE_EVERY_S = 5.0
PENDING_EVERY_S = 1.0  # scheduler_pending_pods is counted this often, off the cycle


class Scheduler(Actor):
    name = "scheduler"
    singleton = True

    def __init__(self, settings: Settings, config: SchedulerConfiguration, name: str = "scheduler", **kw: Any):
        self.name = name
        super().__init__(settings, **kw)
        self.config = config
        self.frameworks: dict[str, Framework] = build_all(config)
        self._reset()

    def _reset(self) -> None:
        self.table = NodeTable()
        self.queue = SchedulingQueue(self.clock, self.config.podInitialBackoffSeconds, self.config.podMaxBackoffSeconds)
        self.replicasets: dict[tuple[str, str], dict] = {}
        self.storage = StorageView()  # claims, volumes and classes, for VolumeBinding
        self.assumed: dict[str, tuple[str, float]] = {}  # uid -> (node, expiry once the bind is answered)
        self.reported: dict[str, str] = {}  # pod key -> the FitError last written
        self.nominated: dict[str, PodInfo] = {}  # pending pods with status.nominatedNodeName
        self.preempt_offset = 0
        self.loop = SlicedLoop(self.bus, self._step, lambda: len(self.queue) > 0, self.queue.next_wakeup,
                               lambda: self.active)
        self._expiry_started = getattr(self, "_expiry_started", False)

    # ---- the cache -----------------------------------------------------------------------------
    def informers(self) -> list[tuple[QueueSpec, Callable[[Delta], None]]]:
        events = self.names.events
        spec = QueueSpec(self.names.actor_queue(self.name),
                         ((events, "pod.#"), (events, "node.#"), (events, "replicaset.#"),
                          *((events, f"{kind}.#") for kind in STORAGE_KINDS)), single_active=True)
        return [(spec, self.on_delta)]

    def on_active(self) -> None:
        self._reset()  # the informer loads a fresh snapshot: start from nothing

    def on_synced(self) -> None:
        self.log.info("scheduler.synced", nodes=len(self.table), pending=len(self.queue))
        if not self._expiry_started:
            self._expiry_started = True
            self.every(EXPIRE_EVERY_S, self.expire_assumed)
            self.every(PENDING_EVERY_S, lambda: metrics.pending_pods(qp.where for qp in self.queue.pods.values()))
        self.kick()

    def on_delta(self, delta: Delta) -> None:
        if delta.kind == "Pod":
            self.on_pod(delta)
        elif delta.kind == "Node":
            if delta.type == "DELETED":
                self.table.remove_node(delta.object["metadata"]["name"])
            else:
                self.table.upsert_node(delta.object)
                self._cluster_changed()
        elif delta.kind == "ReplicaSet":
            key = (delta.object["metadata"].get("namespace", ""), delta.object["metadata"]["name"])
            if delta.type == "DELETED":
                self.replicasets.pop(key, None)
            else:
                self.replicasets[key] = delta.object
        elif delta.kind in self.storage.objects:
            self.storage.apply(delta.kind, delta.object, delta.type == "DELETED")
            self._cluster_changed()  # a claim bound or a volume made may let a waiting pod go

    def on_pod(self, delta: Delta) -> None:
        info = pod_info(delta.object)
        if delta.type == "DELETED" or (info.node_name and info.terminal):
            self.assumed.pop(info.uid, None)
            self.queue.delete(info.key)
            self.reported.pop(info.key, None)
            if self.table.remove_pod(info.uid) is not None:
                self._cluster_changed()
        elif info.node_name:  # bound, by us or by anyone: it counts on its node
            self.assumed.pop(info.uid, None)
            self.queue.delete(info.key)
            self.reported.pop(info.key, None)
            self.table.add_pod(info, info.node_name)
        elif info.deleting or info.scheduler_name not in self.frameworks:
            self.queue.delete(info.key)
        elif info.uid not in self.assumed:
            self.queue.add(info)
            self.kick()
        self._track_nomination(info, delta.type == "DELETED" or bool(info.node_name) or info.deleting)

    def _track_nomination(self, info: PodInfo, gone: bool) -> None:
        if info.nominated_node and not gone:
            self.nominated[info.uid] = info
        else:
            self.nominated.pop(info.uid, None)

    def _cluster_changed(self) -> None:
        if self.queue.cluster_changed():
            self.kick()

    def _replicaset(self, namespace: str, name: str) -> dict | None:
        return self.replicasets.get((namespace, name))

    # ---- the loop ------------------------------------------------------------------------------
    def kick(self) -> None:
        self.loop.kick()

    def _step(self) -> bool:
        qp = self.queue.pop()
        if qp is not None:
            self.schedule_one(qp)
        return qp is not None

    def schedule_one(self, qp: QueuedPod) -> None:
        framework = self.frameworks[qp.info.scheduler_name]
        ctx = Context(qp.info, self.table, extra={"replicaset": self._replicaset, "storage": self.storage})
        decision = self._with_nominated(qp.info, lambda: framework.schedule(ctx))
        if decision.node is not None:
            self._assume_and_bind(qp, decision, framework)
            return
        self.queue.unschedulable(qp)
        metrics.scheduling_attempt("unschedulable", framework.name, self.clock() - qp.attempted_at)
        candidate = None
        if preemption.eligible(qp.info, self.table):
            candidate = preemption.find(framework, ctx, decision.diagnosis, self.preempt_offset)
            self.preempt_offset += 1
        if candidate is not None:
            self._preempt(qp, candidate, framework)
        self._report_unschedulable(qp, decision, framework)

    def _with_nominated(self, pod: PodInfo, run: Callable[[], Decision]) -> Decision:
        """Filter as if pods nominated to nodes (of at least this priority) were already there."""
        others = [p for p in self.nominated.values() if p.uid != pod.uid and p.priority >= pod.priority
                  and p.nominated_node in self.table.index and p.uid not in self.table.pod_node]
        for p in others:
            self.table.add_pod(p, p.nominated_node)
        try:
            return run()
        finally:
            for p in others:
                self.table.remove_pod(p.uid)

    def _preempt(self, qp: QueuedPod, candidate: preemption.Candidate, framework: Framework) -> None:
        """Nominate the node, mark the victims DisruptionTarget and delete them gracefully."""
        info = qp.info
        self.log.info("scheduler.preempting", pod=info.key, node=candidate.node,
                      victims=[v.key for v in candidate.victims])
        self._write({"verb": "patch", "kind": "Pod", "namespace": info.namespace, "name": info.name,
                     "object": {"status": {"nominatedNodeName": candidate.node}}, "options": {"subresource": "status"}})
        for victim in candidate.victims:
            status = reporting.disruption_status(victim.pod, framework.name)
            self._write({"verb": "patch", "kind": "Pod", "namespace": victim.namespace, "name": victim.name,
                         "object": status, "options": {"subresource": "status"}})
            self._write({"verb": "delete", "kind": "Pod", "namespace": victim.namespace, "name": victim.name,
                         "options": {"preconditions": {"uid": victim.uid}}})
            self._event(victim.pod, "Preempted", f"Preempted by pod {info.uid} on node {candidate.node}", "Normal",
                        framework.name)

    # ---- binding -------------------------------------------------------------------------------
    def _assume_and_bind(self, qp: QueuedPod, decision: Decision, framework: Framework) -> None:
        info, node = qp.info, decision.node
        self.table.add_pod(info, node)
        self.assumed[info.uid] = (node, float("inf"))
        meta = info.pod["metadata"]
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": info.name, "namespace": info.namespace},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        body = {"verb": "bind", "kind": "Pod", "namespace": info.namespace, "name": info.name, "object": binding,
                "resourceVersion": meta.get("resourceVersion"), "options": {"uid": info.uid}}
        annotations = reporting.decision_annotations(framework, decision, self.table.names) if framework.record \
            else None
        self._pre_bind(selections(info.pod, self.storage, node),
                       lambda: self.ask(body, lambda reply: self._on_bound(qp, node, framework, annotations, reply)),
                       lambda failure: self._on_bound(qp, node, framework, annotations, failure))

    def _pre_bind(self, writes: list[dict], bind: Callable[[], None], failed: Callable[[object], None]) -> None:
        """VolumeBinding's PreBind: each waiting claim gets the chosen node, one after another, then the bind."""
        if not writes:
            bind()
            return

        def done(reply) -> None:
            try:
                unwrap(reply)
            except StatusError as exc:
                failed(exc)
                return
            self._pre_bind(writes[1:], bind, failed)

        self.ask(writes[0], done)

    def _on_bound(self, qp: QueuedPod, node: str, framework: Framework, annotations: dict | None, reply) -> None:
        info = qp.info
        try:
            unwrap(reply)
        except StatusError as exc:
            self._forget(info.uid)
            metrics.scheduling_attempt("error", framework.name, self.clock() - qp.attempted_at)
            self.log.info("scheduler.bind_failed", pod=info.key, node=node, reason=exc.reason, message=exc.message)
            self.queue.error(qp)
            self.kick()
            return
        if info.uid in self.assumed:
            self.assumed[info.uid] = (node, self.clock() + ASSUME_TTL_S)
        self.queue.done(qp)
        metrics.scheduling_attempt("scheduled", framework.name, self.clock() - qp.attempted_at)
        self.log.debug("scheduler.bound", pod=info.key, node=node, rev=info.pod["metadata"].get("resourceVersion"))
        self._event(info.pod, "Scheduled", f"Successfully assigned {info.key} to {node}", "Normal", framework.name)
        if annotations:
            self._write({"verb": "patch", "kind": "Pod", "namespace": info.namespace, "name": info.name,
                         "object": {"metadata": {"annotations": annotations}}, "options": {}})

    def _forget(self, uid: str) -> None:
        if self.assumed.pop(uid, None) is not None:
            self.table.remove_pod(uid)

    def expire_assumed(self) -> None:
        """A bind answered ok whose event never came: stop counting the pod (a resync will say)."""
        now = self.clock()
        for uid in [u for u, (_n, expiry) in self.assumed.items() if expiry <= now]:
            self.log.warning("scheduler.assumed_expired", uid=uid)
            self._forget(uid)

    # ---- reporting -----------------------------------------------------------------------------
    def _report_unschedulable(self, qp: QueuedPod, decision: Decision, framework: Framework) -> None:
        message = decision.diagnosis.message()
        if self.reported.get(qp.key) == message:
            return
        self.reported[qp.key] = message
        self.log.info("scheduler.unschedulable", pod=qp.key, message=message)
        pod = qp.info.pod
        self._write({"verb": "patch", "kind": "Pod", "namespace": qp.info.namespace, "name": qp.info.name,
                     "object": reporting.unschedulable_status(pod, message), "options": {"subresource": "status"}})
        self._event(pod, "FailedScheduling", message, "Warning", framework.name)

    def _event(self, pod: dict, reason: str, message: str, type_: str, component: str) -> None:
        self.record({"apiVersion": "v1", "kind": "Pod", **pod}, reason, message, type_, component)

    def _write(self, body: dict) -> None:
        def done(reply) -> None:
            if isinstance(reply, StatusError) or not reply.get("ok"):
                status = reply if isinstance(reply, StatusError) else StatusError.from_dict(reply["status"])
                self.log.info("scheduler.write_failed", verb=body["verb"], kind=body["kind"], name=body.get("name"),
                              reason=status.reason, message=status.message[:200])

        self.ask(body, done)
