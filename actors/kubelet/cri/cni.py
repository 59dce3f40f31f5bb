"""The pod network of a node's containerd, by CNI: a conflist over the node's podCIDR (bridge +
host-local; containerd adds the loopback itself; portmap for hostPort), on a bridge of the node's
own, named after the cluster's (actors/kubelet/podnet): CNI's bridge plugin keeps one IPv4 gateway
a bridge, so two nodes of one machine cannot share one. The host routes between the nodes' bridges
(and the process runtime's), so pods of every node reach each other, and ClusterIPs through the
proxy's rules."""
from __future__ import annotations

import json
import zlib
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


def node_bridge(cluster_bridge: str, pod_cidr: str) -> str:
    """The bridge of one node's range: the cluster's name (which podnet.clean removes by) and 4 hex
    digits of the range (15 characters at most, as Linux wants)."""
    return f"{cluster_bridge}{zlib.crc32(pod_cidr.encode()) & 0xffff:04x}"


@dataclass(frozen=True)
class NodeNetwork:
    """Where one node's containerd reads its CNI configuration, where host-local keeps its leases, and
    the cluster's bridge."""
    conf_dir: Path
    data_dir: Path
    bridge: str

    def ready(self, pod_cidr: str) -> bool:
        return write(self.conf_dir, node_bridge(self.bridge, pod_cidr), pod_cidr, self.data_dir)
