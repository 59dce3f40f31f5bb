"""A node's pod sandboxes (k8s-containers.md §4.1): one per pod, made when its first container comes
up, found again by label after a kubelet restart, stopped and removed (CNI gives the address back)
when the pod goes. Labelled with the node, so that nodes sharing one runtime (KUBUS_CRI_ENDPOINT)
each see only theirs."""
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

    def config(self, pod: dict) -> dict:
        config = specs.sandbox_config(pod, logs_root=str(self.logs_root), dns_config=self.dns_config(pod))
        config.setdefault("labels", {})[NODE_LABEL] = self.node
        return config

    def ensure(self, pod: dict) -> Sandbox:
        """The pod's ready sandbox, made if it has none (on a runtime thread: it takes CNI's time)."""
        uid = pod["metadata"]["uid"]
        with self._lock(uid):
            known = self.pods.get(uid)
            if known is not None and known.config is not None:
                return known
            config = self.config(pod)
            if known is None:
                Path(config["log_directory"]).mkdir(parents=True, exist_ok=True)
                try:
                    known = Sandbox(self.client.run_sandbox(config), config, None)
                except CRIError as exc:
                    raise StartError("ContainerCreating", f"Failed to create pod sandbox: {exc.message}") from None
                log.info("kubelet.sandbox_ready", pod_uid=uid, id=known.id[:12])
            known.config = config
            known.ip = self._ip(known.id)
            self.pods[uid] = known
            return known

    def _ip(self, sandbox_id: str) -> str | None:
        try:
            return self.client.sandbox_status(sandbox_id).network.ip or None
        except CRIError:
            return None

    def adopt(self, uid: str) -> None:
        """After a kubelet restart: the pod's ready sandbox, if it has one."""
        for item in self.client.sandboxes(labels={specs.POD_UID: uid}):
            if item.state == pb.SANDBOX_READY:
                self.pods[uid] = Sandbox(item.id, None, self._ip(item.id))
                return

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
