"""One node's kubelet duties: its Node and Lease, and a worker per pod bound to it."""
from __future__ import annotations

import math
import random
from typing import Any, Callable

import structlog

from actors.kubelet import eviction, status as pod_status
from actors.kubelet.probes import Offload
from actors.kubelet.nodeinfo import LEASE_NAMESPACE, NodeConfig, lease_object, node_object, ready_condition
from actors.kubelet.podips import PodAddresses
from actors.kubelet.podnet import PodNetwork
from actors.kubelet.podobjects import PodObjects
from actors.kubelet.podtoken import TokenFetching
from actors.kubelet.runtimes.base import Runtime
from actors.kubelet.volumes import manager as volumes
from actors.kubelet.worker import PodWorker
from api.status import StatusError

log = structlog.get_logger("kubelet")
Call = Callable[[dict, Callable[[Any], None]], None]  # send a request body, get the reply
Credentials = Callable[[dict], dict[str, str]]  # a TokenRequest's status -> the containers' environment
RESYNC_S = 10.0  # a settled pod is synced at least this often
RUNTIME_CHECK_S = 2.0  # the runtime's readiness is looked at this often


class NodeAgent(TokenFetching):
    def __init__(self, cfg: NodeConfig, runtime: Runtime, call: Call, clock: Callable[[], float],
                 offload: Offload | None = None, credentials: Credentials | None = None,
                 network: PodNetwork | None = None):
        self.cfg, self.runtime, self.call, self.clock, self.offload = cfg, runtime, call, clock, offload
        self.credentials = credentials  # a ServiceAccount's token → the environment its pods connect with
        self.admit: Callable[[dict], tuple[str, str] | None | str] | None = None  # the node's own pod admission
        self.workers: dict[str, PodWorker] = {}
        self.written: dict[str, dict] = {}  # uid -> the status last written
        self.writing: set[str] = set()
        self.deleting: set[str] = set()
        self.node_uid: str | None = None
        self.services: Callable[[str], list[dict]] = lambda namespace: []
        self.network, self.gateway = network, None  # pods' own namespaces, and the node's gateway on the bridge
        self.addresses = PodAddresses(loopback=getattr(runtime, "loopback_pods", False) and network is None)
        if network is not None:
            runtime.netns_of = lambda uid: network.name(uid) if network.exists(uid) else None
        self.lease_renewed = 0.0
        self.not_ready: tuple[str, str] | None | str = None  # as published; "?" when a write failed
        self.runtime_checked = 0.0
        self.readiness = getattr(runtime, "not_ready", None)  # the runtime's own readiness, if it has one
        self.due = 0.0  # no worker's quiet_to is earlier: sync_all has nothing to do before then
        self.eviction_interval, self.evictions_checked = eviction.MONITORING_INTERVAL_S, 0.0

    # ---- the Node and its Lease ----------------------------------------------------------------
    def register(self) -> None:
        """Create the Node, or bring an existing one up to date (labels, taints, capacity, status)."""
        self.not_ready = self._runtime_state()
        node = node_object(self.cfg, self.runtime.version, self.clock(), not_ready=self.not_ready)
        self.call({"verb": "create", "kind": "Node", "object": node}, lambda r: self._registered(node, r))

    def _registered(self, node: dict, reply) -> None:
        if isinstance(reply, dict) and reply.get("ok"):
            self.node_uid = reply["object"]["metadata"]["uid"]
            log.info("kubelet.registered", node=self.cfg.name)
            self.renew_lease()
            return
        self.call({"verb": "get", "kind": "Node", "name": self.cfg.name}, lambda r: self._refresh(node, r))

    def _refresh(self, node: dict, reply) -> None:
        if not (isinstance(reply, dict) and reply.get("ok")):
            log.warning("kubelet.register_failed", node=self.cfg.name, reply=str(reply)[:200])
            return
        current = reply["object"]
        self.node_uid = current["metadata"]["uid"]
        cidrs = {k: v for k, v in (current.get("spec") or {}).items() if k in ("podCIDR", "podCIDRs")}
        merged = {**current, "metadata": {**current["metadata"], "labels": {
            **(current["metadata"].get("labels") or {}), **node["metadata"]["labels"]}},
            "spec": {**node["spec"], **cidrs}}  # the node IPAM controller's, not the kubelet's
        self.call({"verb": "update", "kind": "Node", "name": self.cfg.name, "object": merged}, lambda r: None)
        self.call({"verb": "updateStatus", "kind": "Node", "name": self.cfg.name,
                   "object": {**merged, "status": node["status"]}}, lambda r: None)
        log.info("kubelet.registered", node=self.cfg.name, existing=True)
        self.renew_lease()

    def _runtime_state(self) -> tuple[str, str] | None:
        """Why the runtime keeps this node from Ready, if it does (the cri runtime's Status)."""
        return self.readiness() if self.readiness else None

    def check_runtime(self) -> None:
        """Publish a change of the runtime's readiness in the Node's Ready condition."""
        if self.readiness is None or self.node_uid is None or self.clock() < self.runtime_checked + RUNTIME_CHECK_S:
            return  # a runtime with no readiness of its own (simulated: thousands of hollow nodes a process)
        self.runtime_checked = self.clock()
        state = self._runtime_state()
        if state == self.not_ready:
            return
        self.not_ready = state
        log.info("kubelet.runtime_readiness", node=self.cfg.name, ready=state is None, why=state and state[1])
        self.call({"verb": "get", "kind": "Node", "name": self.cfg.name}, self._set_ready)

    def _set_ready(self, reply) -> None:
        if not (isinstance(reply, dict) and reply.get("ok")):
            return
        node = reply["object"]
        conditions = list((node.get("status") or {}).get("conditions") or [])
        before = next((c for c in conditions if c.get("type") == "Ready"), None)
        ready = ready_condition(self.not_ready, self.clock(), before)
        node["status"]["conditions"] = [ready if c.get("type") == "Ready" else c for c in conditions] \
            if before else [ready, *conditions]
        self.call({"verb": "updateStatus", "kind": "Node", "name": self.cfg.name, "object": node},
                  lambda r: None if isinstance(r, dict) and r.get("ok") else setattr(self, "not_ready", "?"))

    def renew_lease(self) -> None:
        lease = lease_object(self.cfg.name, self.node_uid, self.clock())
        self.call({"verb": "update", "kind": "Lease", "namespace": LEASE_NAMESPACE, "name": self.cfg.name,
                   "object": lease}, self._lease_done(lease))

    def _lease_done(self, lease: dict) -> Callable[[Any], None]:
        def done(reply) -> None:
            if isinstance(reply, dict) and reply.get("ok"):
                self.lease_renewed = self.clock()
            elif isinstance(reply, dict) and reply["status"]["reason"] == "NotFound":
                self.call({"verb": "create", "kind": "Lease", "namespace": LEASE_NAMESPACE, "object": lease},
                          lambda r: setattr(self, "lease_renewed", self.clock()))
        return done

    # ---- pods ----------------------------------------------------------------------------------
    def pod_changed(self, pod: dict, gone: bool) -> None:
        uid = pod["metadata"]["uid"]
        worker = self.workers.get(uid)
        if gone:
            if worker is not None:  # removed from the API (or force-deleted): stop what still runs
                worker.pod = {**worker.pod, "metadata": {**worker.pod["metadata"],
                                                         "deletionTimestamp": worker.pod["metadata"].get(
                                                             "deletionTimestamp") or "gone"}}
                self.deleting.add(uid)
                worker.quiet_to = self.due = 0.0
            return
        if worker is None:
            worker = self.workers[uid] = PodWorker(pod, self.runtime, self.clock, self.cfg.ip, self.offload)
            if getattr(self.runtime, "assigns_addresses", False) and not pod["spec"].get("hostNetwork"):
                worker.pod_ip = ""  # the sandbox's, once it has one (sync_pod)
            self._give_address(worker)
            worker.services = self.services
            worker.allocatable = dict(self.cfg.capacity)
            worker.volumes = volumes.for_pod(self.runtime, uid, self.cfg.capacity)
            if worker.volumes is None:
                worker.objects = PodObjects(pod, self.clock, volumes=False)
            self._fetch_credentials(worker)
            latest = self.runtime.adopt(uid)
            if latest:
                worker.adopt(latest)
                log.info("kubelet.adopted", pod=worker.key, containers=sorted(latest))
        else:
            worker.pod = pod
        self.sync_pod(worker)

    def node_changed(self, node: dict) -> None:
        """The node's range, once known, addresses the pods still on the node's IP (after a restart
        the pods' events may come before the node's: they get back what their status reports)."""
        cidr = (node.get("spec") or {}).get("podCIDR")
        if cidr and hasattr(self.runtime, "network_ready"):
            self.runtime.network_ready(cidr)  # the runtime's CNI addresses its pods
            return
        if self.addresses.network is None and cidr:
            self.addresses.set_cidr(node["spec"]["podCIDR"])
            if self.network is not None:
                self.gateway = self.network.node_ready(node["spec"]["podCIDR"])
            for worker in self.workers.values():
                if worker.pod_ip == worker.node_ip:
                    self._give_address(worker)

    def _give_address(self, worker: PodWorker) -> None:
        if worker.pod["spec"].get("hostNetwork"):
            return
        reported = (worker.pod.get("status") or {}).get("podIP")
        worker.pod_ip = self.addresses.address_for(worker.uid, reported) or worker.pod_ip
        worker.quiet_to = self.due = 0.0
        if self.network is not None and self.gateway and worker.pod_ip != worker.node_ip:
            self.network.setup(worker.pod, worker.pod_ip, self.gateway)

    def clean_orphans(self) -> None:
        """Runtime state of pods this node no longer has: stop and remove it (never run twice)."""
        for uid in self.runtime.known_pods():
            if uid not in self.workers:
                log.info("kubelet.orphan_removed", node=self.cfg.name, pod_uid=uid)
                self._forget(uid)
        volumes.clean_orphans(self.runtime, set(self.workers))

    def _forget(self, uid: str) -> None:
        """A pod's containers, files and network namespace go."""
        self.runtime.forget(uid)
        volumes.teardown(self.runtime, uid)
        if self.network is not None:
            self.network.teardown(uid)

    def sync_all(self) -> None:
        """Sync each pod that may have changed by itself: a hollow kubelet holds tens of thousands of
        settled pods, and syncing them all twice a second took its whole loop. A node none of whose
        pods is due is not even looked through (5,000 hollow nodes are, twice a second)."""
        now = self.clock()
        self.check_runtime()
        self.check_evictions()
        if now < self.due:
            return
        self.due = math.inf
        for worker in list(self.workers.values()):
            if worker.quiet_to <= now:
                self.sync_pod(worker)
            else:
                self.due = min(self.due, worker.quiet_to)

    def check_evictions(self) -> None:
        """The eviction manager's round, each monitoring interval: pods whose emptyDir outgrew its sizeLimit."""
        if self.clock() < self.evictions_checked + self.eviction_interval or \
                getattr(self.runtime, "pods_root", None) is None:
            return  # (a runtime that mounts no volumes: hollow nodes hold thousands of pods and no emptyDir)
        self.evictions_checked = self.clock()
        for worker, message in [(w, w.over_limit()) for w in list(self.workers.values())]:
            if not message:
                continue
            log.info("kubelet.pod_evicted", node=self.cfg.name, pod=worker.key, message=message)
            worker.evict(message)
            worker.quiet_to = self.due = 0.0
            self.call(eviction.recorded(worker.pod, message), lambda reply: None)

    def _admitted(self, worker: PodWorker) -> bool:
        """Whether the node may run the pod (asked once: a refusal fails the pod, as the kubelet's
        admission does); False while the answer waits for what it needs."""
        if worker.admitted or self.admit is None:
            return True
        verdict = self.admit(worker.pod)
        if verdict == "wait":
            return False
        worker.admitted = True
        if verdict is not None:
            worker.refused = verdict
            log.info("kubelet.pod_refused", node=self.cfg.name, pod=worker.key, reason=verdict[0])
        return True

    def sync_pod(self, worker: PodWorker) -> None:
        synced_at = self.clock()
        if not worker.terminating and not self._admitted(worker):
            worker.quiet_to = self.due = 0.0
            return
        if worker.pod_ip == "":
            worker.pod_ip = self.runtime.pod_ip(worker.uid) or ""
        if not worker.terminating:
            worker.fetch(self.call, lambda: self.sync_pod(worker))
            if worker.token.due(synced_at):
                self._fetch_credentials(worker, refresh=True)
        worker.sync()
        self._report(worker)
        worker.quiet_to = self._quiet_until(worker, synced_at)
        self.due = min(self.due, worker.quiet_to)

    def _quiet_until(self, worker: PodWorker, synced_at: float) -> float:
        """0.0 while its status is not written as computed; a resync at least every RESYNC_S (jittered,
        as kubelet's periodic sync is) whatever the runtime foresees."""
        uid, memo = worker.uid, worker.status_memo
        if uid in self.writing or uid in self.deleting or memo is None or self.written.get(uid) is not memo.status:
            return 0.0
        return min(worker.quiet_until(synced_at), synced_at + RESYNC_S * random.uniform(0.5, 1.0))

    def _report(self, worker: PodWorker) -> None:
        """Write the pod's status if it changed; confirm or finish its deletion."""
        uid = worker.uid
        if uid in self.deleting and worker.stopped():  # already gone from the API
            self._forget(uid)
            self.addresses.release(uid)
            self.workers.pop(uid, None)
            self.written.pop(uid, None)
            self.deleting.discard(uid)
            return
        status = self._status(worker)
        if status != self.written.get(uid) and uid not in self.writing and uid not in self.deleting:
            self._write_status(worker, status)
        elif worker.terminating and worker.stopped() and self.written.get(uid) == status:
            self._confirm_deletion(worker)

    def _status(self, worker: PodWorker) -> dict:
        """The pod's status, computed again only when what it is made of changed: a hollow kubelet
        holds thousands of pods, and a pod waiting on its write is synced every tick."""
        written, inputs = self.written.get(worker.uid), pod_status.inputs(worker)
        memo = worker.status_memo
        if memo is not None and memo.pod is worker.pod and memo.written is written and memo.inputs == inputs:
            return memo.status
        status = pod_status.pod_status(worker, worker.pod.get("status"), written)
        if status == written:
            status = written  # the same object: comparing them on every later sync costs nothing
        worker.status_memo = pod_status.Memo(worker.pod, written, inputs, status)
        return status

    def _write_status(self, worker: PodWorker, status: dict) -> None:
        uid = worker.uid
        self.writing.add(uid)

        def done(reply) -> None:
            self.writing.discard(uid)
            if isinstance(reply, dict) and reply.get("ok"):
                self.written[uid] = status
                if self.workers.get(uid) is worker:
                    self._report(worker)  # what changed while this write was out goes now, not a sync later
            else:
                log.info("kubelet.status_failed", pod=worker.key, reply=str(reply)[:200])

        obj = {**worker.pod, "status": status}
        obj["metadata"] = {k: v for k, v in obj["metadata"].items() if k != "resourceVersion"}
        self.call({"verb": "updateStatus", "kind": "Pod", "namespace": worker.pod["metadata"].get("namespace"),
                   "name": worker.pod["metadata"]["name"], "object": obj}, done)

    def _confirm_deletion(self, worker: PodWorker) -> None:
        """Containers are gone: delete with grace 0 so the store removes the pod."""
        uid = worker.uid
        if uid in self.deleting:
            return
        self.deleting.add(uid)
        meta = worker.pod["metadata"]
        self.call({"verb": "delete", "kind": "Pod", "namespace": meta.get("namespace"), "name": meta["name"],
                   "options": {"gracePeriodSeconds": 0, "preconditions": {"uid": uid}}},
                  lambda reply: log.info("kubelet.pod_removed", pod=worker.key, ok=_ok(reply)))


def _ok(reply) -> bool:
    return isinstance(reply, dict) and bool(reply.get("ok")) or \
        (isinstance(reply, dict) and reply.get("status", {}).get("reason") == "NotFound") or \
        (isinstance(reply, StatusError) and reply.reason == "NotFound")
