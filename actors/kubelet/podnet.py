"""Pod network namespaces (setting `pod_network: namespaces`; root and `ip` needed): each pod gets a
namespace `kubus-<tag>-<uid>` with a veth into the cluster's bridge on this host, its address, a
default route via its node's gateway, and its own /etc/resolv.conf and /etc/hosts (`ip netns exec`
binds /etc/netns/<name>/* over /etc in the container's mount namespace).

One bridge per cluster and host carries every node's range: it holds each node's gateway (the first
address of its podCIDR), and pods take the cluster CIDR's prefix, so pods of different nodes reach
each other directly on it. Traffic to a ClusterIP leaves by the gateway to the host, where the
proxy's nftables rules DNAT it to an endpoint and send it back out on the bridge (the one interface
made to forward); a ClusterIP without rules is local to the host (kube-dns's: the DNS actor)."""
from __future__ import annotations

import hashlib
import ipaddress
import os
import shutil
import subprocess
from pathlib import Path

import structlog

log = structlog.get_logger("kubelet")
NETNS_ETC = Path("/etc/netns")


def available() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None


def _tag(text: str, size: int) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:size]


def _ip(*args: str, batch: str | None = None, netns: str | None = None) -> subprocess.CompletedProcess:
    command = ["ip", *(["-n", netns] if netns else []), *(["-batch", "-"] if batch is not None else args)]
    return subprocess.run(command, input=batch, capture_output=True, text=True)


class PodNetwork:
    def __init__(self, cluster: str, cluster_cidr: str, dns: str, domain: str):
        self.tag = _tag(cluster, 8)
        self.bridge = f"kb{self.tag}"
        self.prefixlen = ipaddress.IPv4Network(cluster_cidr).prefixlen
        self.dns, self.domain = dns, domain

    def dns_config(self, pod: dict) -> dict | None:
        """CRI's DNSConfig for a pod sandbox (containerd writes resolv.conf from it); None: the host's."""
        parts = dns_parts(pod, self.dns, self.domain)
        return None if parts is None else dict(zip(("servers", "searches", "options"), parts))

    def name(self, uid: str) -> str:
        return f"kubus-{self.tag}-{uid}"

    def exists(self, uid: str) -> bool:
        return Path(f"/run/netns/{self.name(uid)}").exists()

    # ---- the node: the bridge and its gateway ----------------------------------------------------
    def node_ready(self, cidr: str) -> str:
        """Bring up the bridge with the node's gateway address; the gateway."""
        address = gateway(cidr)
        if _ip("link", "show", self.bridge).returncode != 0:
            _ip("link", "add", self.bridge, "type", "bridge")
        _ip("link", "set", self.bridge, "up")
        _ip("addr", "replace", f"{address}/{ipaddress.IPv4Network(cidr).prefixlen}", "dev", self.bridge)
        forwarding = Path(f"/proc/sys/net/ipv4/conf/{self.bridge}/forwarding")
        forwarding.write_text("1")  # a pod's packet the proxy's rules DNAT to another pod goes back out here
        return address

    # ---- a pod ------------------------------------------------------------------------------------
    def setup(self, pod: dict, address: str, gateway: str) -> bool:
        """The pod's namespace, link, address, route and files (kept if they exist: an adopted pod)."""
        uid = pod["metadata"]["uid"]
        name = self.name(uid)
        if self.exists(uid):
            return True
        host_end, pod_end = f"kv{_tag(uid, 10)}", f"kp{_tag(uid, 10)}"
        made = _ip(batch=f"netns add {name}\nlink add {host_end} type veth peer name {pod_end}\n"
                         f"link set {pod_end} netns {name}\nlink set {host_end} master {self.bridge} up\n")
        inside = _ip(netns=name, batch=f"link set lo up\nlink set {pod_end} name eth0\n"
                                       f"addr add {address}/{self.prefixlen} dev eth0\nlink set eth0 up\n"
                                       f"route add default via {gateway}\n")
        if made.returncode or inside.returncode:
            log.warning("kubelet.pod_network_failed", pod=uid, error=(made.stderr + inside.stderr).strip()[:300])
            self.teardown(uid)
            return False
        self._files(name, pod, address)
        return True

    def _files(self, name: str, pod: dict, address: str) -> None:
        folder = NETNS_ETC / name
        folder.mkdir(parents=True, exist_ok=True)
        hostname = pod["spec"].get("hostname") or pod["metadata"]["name"]
        (folder / "hosts").write_text("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost "
                                      f"ip6-localhost ip6-loopback\n{address}\t{hostname}\n")
        resolv = resolv_conf(pod, self.dns, self.domain)
        if resolv is not None:
            (folder / "resolv.conf").write_text(resolv)

    def teardown(self, uid: str) -> None:
        name = self.name(uid)
        _ip("netns", "del", name)  # its end of the veth goes with it, and so the bridge's end
        shutil.rmtree(NETNS_ETC / name, ignore_errors=True)


def gateway(cidr: str) -> str:
    """A node's address on the bridge: its range's first."""
    return str(ipaddress.IPv4Network(cidr).network_address + 1)


def dns_parts(pod: dict, dns: str, domain: str) -> tuple[list[str], list[str], list[str]] | None:
    """ClusterFirst: the cluster DNS and the namespace's search path, ndots:5; `Default` keeps the
    host's file (None); `None` takes only the pod's dnsConfig. dnsConfig is merged in as the kubelet
    does. (nameservers, searches, options)"""
    spec = pod["spec"]
    policy = spec.get("dnsPolicy", "ClusterFirst")
    config = spec.get("dnsConfig") or {}
    if policy == "Default" and not config:
        return None
    namespace = pod["metadata"].get("namespace") or "default"
    base = ([dns], [f"{namespace}.svc.{domain}", f"svc.{domain}", domain], {"ndots": "5"}) \
        if policy in ("ClusterFirst", "ClusterFirstWithHostNet") else ([], [], {})
    servers = list(dict.fromkeys(base[0] + list(config.get("nameservers") or [])))[:3]
    search = list(dict.fromkeys(base[1] + list(config.get("searches") or [])))[:32]
    options = {**base[2], **{o["name"]: o.get("value") for o in config.get("options") or [] if o.get("name")}}
    return servers, search, [k if v in (None, "") else f"{k}:{v}" for k, v in options.items()]


def resolv_conf(pod: dict, dns: str, domain: str) -> str | None:
    """The pod's /etc/resolv.conf (dns_parts), or None to keep the host's."""
    parts = dns_parts(pod, dns, domain)
    if parts is None:
        return None
    servers, search, options = parts
    lines = [f"search {' '.join(search)}"] if search else []
    lines += [f"nameserver {s}" for s in servers]
    if options:
        lines.append("options " + " ".join(options))
    return "\n".join(lines) + "\n"


def clean(cluster: str) -> list[str]:
    """Every namespace, link and file of `cluster`'s pods on this host, and its bridge: what `make down`
    and the tests' teardown leave behind otherwise. The names removed."""
    if not available():
        return []
    prefix = f"kubus-{_tag(cluster, 8)}-"
    listed = _ip("netns", "list").stdout.split()
    gone = [n for n in listed if n.startswith(prefix)]
    for name in gone:
        _ip("netns", "del", name)
        shutil.rmtree(NETNS_ETC / name, ignore_errors=True)
    bridge = f"kb{_tag(cluster, 8)}"  # the cluster's, and the cri nodes' named after it (cri/cni.py)
    for link in _ip("-o", "link", "show", "type", "bridge").stdout.splitlines():
        name = link.split(":")[1].strip().split("@")[0]
        if name.startswith(bridge) and _ip("link", "del", name).returncode == 0:
            gone.append(name)
    return gone


if __name__ == "__main__":
    from config.settings import load_settings

    print("\n".join(f"removed {name}" for name in clean(load_settings().cluster)))
