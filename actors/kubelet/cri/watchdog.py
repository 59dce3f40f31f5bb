"""The kubelet's watch over the containerd it started: asked every few seconds whether it answers,
and started again when it does not (killed, crashed, hung). Containers live on under their shims
while containerd is away, and the new containerd finds them, so a pod that ran still runs, with the
same container id (k8s-containers.md §2.4)."""
from __future__ import annotations

import structlog

from actors.kubelet.cri.containerd import Containerd

log = structlog.get_logger("kubelet")
CHECK_S = 3.0  # how often containerd is asked (Kubernetes' PLEG relist is 1 s; its runtime check 5 s)


class Watchdog:
    def __init__(self, daemon: Containerd, node: str):
        self.daemon, self.node = daemon, node
        self.restarts = 0

    def check(self) -> bool:
        """Whether containerd had to be started again (it did not answer)."""
        if self.daemon.answering():
            return False
        log.warning("kubelet.containerd_not_answering", node=self.node, socket=self.daemon.endpoint)
        self.daemon.ensure()
        self.restarts += 1
        log.info("kubelet.containerd_restarted", node=self.node, restarts=self.restarts)
        return True
