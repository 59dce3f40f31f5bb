"""The pod network of a node's containerd, by CNI: a conflist over the node's podCIDR (bridge +
host-local; containerd adds the loopback itself; portmap for hostPort), on the cluster's bridge —
the same bridge and gateway scheme as the process runtime's pod namespaces (actors/kubelet/podnet),
so pods of every node and both runtimes reach each other, and ClusterIPs through the proxy's rules."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CONFLIST = "10-kubus.conflist"


def conflist(bridge: str, pod_cidr: str, data_dir: Path) -> dict:
    """k8s-containers.md §3.1; no `ipMasq`: nothing a pod sends leaves this machine."""
    ipam = {"type": "host-local", "ranges": [[{"subnet": pod_cidr}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": str(data_dir)}
    return {"cniVersion": "1.0.0", "name": "kubus", "plugins": [
        {"type": "bridge", "bridge": bridge, "isGateway": True, "ipMasq": False, "hairpinMode": True, "ipam": ipam},
        {"type": "portmap", "capabilities": {"portMappings": True}}]}


def write(conf_dir: Path, bridge: str, pod_cidr: str, data_dir: Path) -> bool:
    """Write (or rewrite) the node's conflist; containerd watches the folder. True if it changed."""
    text = json.dumps(conflist(bridge, pod_cidr, data_dir), indent=1) + "\n"
    path = conf_dir / CONFLIST
    if path.exists() and path.read_text() == text:
        return False
    conf_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.rename(path)
    return True


@dataclass(frozen=True)
class NodeNetwork:
    """Where one node's containerd reads its CNI configuration, where host-local keeps its leases, and
    the cluster's bridge."""
    conf_dir: Path
    data_dir: Path
    bridge: str

    def ready(self, pod_cidr: str) -> bool:
        return write(self.conf_dir, self.bridge, pod_cidr, self.data_dir)
