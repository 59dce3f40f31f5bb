"""A node's pod sandboxes (k8s-containers.md §4.1): one per pod, made when its first container comes
up, found again by label after a kubelet restart, stopped and removed (CNI gives the address back)
when the pod goes. Labelled with the node, so that nodes sharing one runtime (KUBUS_CRI_ENDPOINT)
each see only theirs.

A sandbox that dies (its pause process gone: containerd reports it NOTREADY) is what the kubelet's
computePodActions calls a changed sandbox: the pod's containers are killed with it, and the next
container to start gets a new sandbox, its attempt one more than the pod's last; the old one stays,
stopped, with its dead containers (`--previous`), until the pod goes."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import structlog

from actors.kubelet.cri import specs
from actors.kubelet.cri.api import cri_pb2 as pb
from actors.kubelet.cri.client import CRIError, RuntimeClient
from actors.kubelet.runtimes.base import StartError

log = structlog.get_logger("kubelet")
NODE_LABEL = "kubus.io/node"


@dataclass
class Sandbox:
    id: str
    config: dict | None  # None for one adopted until its pod is seen again
    ip: str | None
    attempt: int = 0
    dead: bool = False  # its pause process is gone: the next container start makes a new one


class Sandboxes:
    def __init__(self, client: RuntimeClient, node: str, logs_root: Path,
                 dns_config: Callable[[dict], dict | None]):
        self.client, self.node, self.logs_root, self.dns_config = client, node, logs_root, dns_config
        self.pods: dict[str, Sandbox] = {}
        self.locks: dict[str, threading.Lock] = {}
        self.guard = threading.Lock()

    def _lock(self, uid: str) -> threading.Lock:
        with self.guard:
            return self.locks.setdefault(uid, threading.Lock())

    def config(self, pod: dict, attempt: int = 0) -> dict:
        config = specs.sandbox_config(pod, logs_root=str(self.logs_root), dns_config=self.dns_config(pod),
                                      attempt=attempt)
        config.setdefault("labels", {})[NODE_LABEL] = self.node
        return config

    def ensure(self, pod: dict) -> Sandbox:
        """The pod's ready sandbox, made if it has none (on a runtime thread: it takes CNI's time)."""
        uid = pod["metadata"]["uid"]
        with self._lock(uid):
            known = self.pods.get(uid)
            if known is not None and known.config is not None and not known.dead:
                return known
            if known is None or known.dead:
                known = self._run(pod)
            else:
                known.config = self.config(pod, known.attempt)
            known.ip = self._ip(known.id)
            self.pods[uid] = known
            return known

    def _run(self, pod: dict) -> Sandbox:
        """A new sandbox, its attempt one more than the pod's last (a name is the pod's and the attempt's)."""
        uid = pod["metadata"]["uid"]
        try:
            earlier = [s.metadata.attempt for s in self.client.sandboxes(labels={specs.POD_UID: uid})]
            attempt = max(earlier) + 1 if earlier else 0
            config = self.config(pod, attempt)
            Path(config["log_directory"]).mkdir(parents=True, exist_ok=True)
            made = Sandbox(self.client.run_sandbox(config), config, None, attempt)
        except CRIError as exc:
            raise StartError("ContainerCreating", f"Failed to create pod sandbox: {exc.message}") from None
        log.info("kubelet.sandbox_ready", pod_uid=uid, id=made.id[:12], attempt=attempt)
        return made

    def _ip(self, sandbox_id: str) -> str | None:
        try:
            return self.client.sandbox_status(sandbox_id).network.ip or None
        except CRIError:
            return None

    def adopt(self, uid: str) -> None:
        """After a kubelet restart: the pod's ready sandbox, if it has one."""
        for item in self.client.sandboxes(labels={specs.POD_UID: uid}):
            if item.state == pb.SANDBOX_READY:
                self.pods[uid] = Sandbox(item.id, None, self._ip(item.id), item.metadata.attempt)
                return

    def dead(self, listed: list[pb.PodSandbox]) -> list[str]:
        """The pods whose current sandbox `listed` (a ListPodSandbox answer) shows NOTREADY, newly seen so."""
        not_ready = {s.id for s in listed if s.state == pb.SANDBOX_NOTREADY}
        found = []
        for uid, known in list(self.pods.items()):
            if known.id in not_ready and not known.dead:
                known.dead = True
                found.append(uid)
        return found

    def kill(self, uid: str) -> None:
        """A dead sandbox is stopped, which kills the pod's containers in it (KillPod)."""
        known = self.pods.get(uid)
        if known is None:
            return
        try:
            self.client.stop_sandbox(known.id)
        except CRIError as exc:
            log.warning("kubelet.sandbox_stop_failed", pod_uid=uid, error=exc.message[:200])

    def ip(self, uid: str) -> str | None:
        known = self.pods.get(uid)
        return known.ip if known is not None else None

    def log_directory(self, uid: str) -> str | None:
        known = self.pods.get(uid)
        if known is not None and known.config is not None:
            return known.config["log_directory"]
        found = list(self.logs_root.glob(f"*_{uid}"))
        return str(found[0]) if found else None

    def known(self) -> list[str]:
        """Pod uids with a sandbox on this node."""
        try:
            listed = self.client.sandboxes(labels={NODE_LABEL: self.node})
        except CRIError:
            return list(self.pods)
        return sorted({s.labels.get(specs.POD_UID, "") for s in listed} - {""})

    def remove(self, uid: str) -> None:
        """Stop (its containers are killed, CNI releases the address) and remove the pod's sandboxes."""
        with self._lock(uid):
            self.pods.pop(uid, None)
            try:
                for item in self.client.sandboxes(labels={specs.POD_UID: uid}):
                    self.client.stop_sandbox(item.id)
                    self.client.remove_sandbox(item.id)
                    log.info("kubelet.sandbox_removed", pod_uid=uid, id=item.id[:12])
            except CRIError as exc:
                log.warning("kubelet.sandbox_remove_failed", pod_uid=uid, error=exc.message[:200])
        with self.guard:
            self.locks.pop(uid, None)
