"""kube-proxy's nftables mode, for pods in network namespaces: the proxy's table rendered as rules of
one nftables table per cluster (`ip kubus-<tag>`), replaced in one `nft -f` transaction per change.

- `services` (jumped to from the nat prerouting and output hooks) sends each ClusterIP:port, and each
  node port on the host's non-loopback addresses, to its service chain;
- a service chain picks an endpoint chain at random (`numgen random mod N`), or, with ClientIP
  affinity, the endpoint whose set holds the client's address; an endpoint chain remembers the
  client (affinity), marks the packet and DNATs it;
- marked packets are masqueraded on the way out (kube-proxy's --masquerade-all): the reply comes
  back through the host, which undoes both translations;
- a ClusterIP:port without endpoints has no rule: the service range is local to the host
  (`localroute.py`), where nothing listens, so a connection is refused as kube-proxy's reject does.

Chain and set names are hashes of what they stand for, so an unchanged endpoint keeps its affinity
set (and its remembered clients) across changes."""
from __future__ import annotations

import hashlib
import shutil
import subprocess

import structlog

from actors.proxy.table import NODE_PORT_HOST, Port, Table

log = structlog.get_logger("proxy")
MASQUERADE_MARK = 0x4000  # kube-proxy's


def table_name(cluster: str) -> str:
    return f"kubus-{hashlib.sha1(cluster.encode()).hexdigest()[:8]}"


def available() -> bool:
    return shutil.which("nft") is not None


def _hash(*parts: object) -> str:
    return hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:12]


def base(name: str, service_cidr: str) -> str:
    """The table's hooks; `services` and the rest are filled by `render`."""
    local = f"fib daddr type local ip daddr != {{ 127.0.0.0/8, {service_cidr} }}"
    return (f"table ip {name} {{\n"
            "  chain nat-prerouting { type nat hook prerouting priority dstnat; policy accept; jump services; }\n"
            "  chain nat-output { type nat hook output priority -100; policy accept; jump services; }\n"
            "  chain nat-postrouting { type nat hook postrouting priority srcnat; policy accept;\n"
            f"    meta mark & {MASQUERADE_MARK:#x} == {MASQUERADE_MARK:#x} masquerade; }}\n"
            "  chain services { jump cluster-ips; "
            f"{local} jump node-ports; }}\n"
            "  chain cluster-ips { }\n  chain node-ports { }\n}\n")


def render(table: Table) -> tuple[list[str], list[str], dict[str, list[str]], dict[str, int]]:
    """The rules of `cluster-ips` and `node-ports`, and every service and endpoint chain's rules and
    affinity set's timeout, by name."""
    cluster_ips: list[str] = []
    node_ports: list[str] = []
    chains: dict[str, list[str]] = {}
    sets: dict[str, int] = {}
    for (ip, port, protocol), served in sorted(table.items()):
        if not served.endpoints:
            continue
        chain = f"svc-{_hash(served.service, protocol)}"
        match = f"meta l4proto {protocol.lower()} th dport {port}"
        if ip == NODE_PORT_HOST:
            node_ports.append(f"{match} goto {chain}")
        else:
            cluster_ips.append(f"ip daddr {ip} {match} goto {chain}")
        if chain not in chains:
            chains[chain] = _service_chain(served, protocol, chains, sets)
    return cluster_ips, node_ports, chains, sets


def _service_chain(served: Port, protocol: str, chains: dict[str, list[str]], sets: dict[str, int]) -> list[str]:
    rules, picks = [], []
    for ip, port in served.endpoints:
        chain = f"ep-{_hash(served.service, protocol, ip, port)}"
        affinity = f"aff-{_hash(served.service, protocol, ip, port, served.affinity_s)}"
        remember = []
        if served.affinity_s:
            sets[affinity] = served.affinity_s
            rules.append(f"ip saddr @{affinity} goto {chain}")
            remember = [f"update @{affinity} {{ ip saddr }}"]
        chains[chain] = remember + [f"meta mark set meta mark | {MASQUERADE_MARK:#x}",
                                    f"meta l4proto {protocol.lower()} dnat to {ip}:{port}"]
        picks.append(chain)
    choices = ", ".join(f"{i} : goto {c}" for i, c in enumerate(picks))
    return rules + [f"numgen random mod {len(picks)} vmap {{ {choices} }}"]


class NftTable:
    """The cluster's table on this host, owned by one proxy: made at start, replaced on every change,
    deleted at stop (and by `clear`, should a proxy have been killed)."""

    def __init__(self, cluster: str, service_cidr: str):
        self.name, self.service_cidr = table_name(cluster), service_cidr
        self.chains: set[str] = set()
        self.sets: set[str] = set()

    def start(self) -> bool:
        done = self._nft(f"table ip {self.name} {{}}\ndelete table ip {self.name}\n"
                         + base(self.name, self.service_cidr))
        if done:
            log.info("proxy.nftables_table", table=self.name)
        return done

    def apply(self, table: Table) -> bool:
        cluster_ips, node_ports, chains, sets = render(table)
        t = f"ip {self.name}"
        lines = [f"flush chain {t} cluster-ips", f"flush chain {t} node-ports"]
        for name in sets.keys() - self.sets:
            lines.append(f"add set {t} {name} {{ type ipv4_addr; flags dynamic,timeout; timeout {sets[name]}s; }}")
        for name, rules in chains.items():
            lines += [f"add chain {t} {name}", f"flush chain {t} {name}"]
            lines += [f"add rule {t} {name} {rule}" for rule in rules]
        lines += [f"add rule {t} cluster-ips {rule}" for rule in cluster_ips]
        lines += [f"add rule {t} node-ports {rule}" for rule in node_ports]
        stale = self.chains - chains.keys()
        lines += [f"flush chain {t} {name}" for name in stale] + [f"delete chain {t} {name}" for name in stale]
        lines += [f"delete set {t} {name}" for name in self.sets - sets.keys()]
        if not self._nft("\n".join(lines) + "\n"):
            return False
        self.chains, self.sets = set(chains), set(sets)
        return True

    def stop(self) -> None:
        clear(self.name)

    def _nft(self, script: str) -> bool:
        done = subprocess.run(["nft", "-f", "-"], input=script, capture_output=True, text=True)
        if done.returncode != 0:
            log.error("proxy.nftables_failed", table=self.name, error=done.stderr.strip()[:500])
        return done.returncode == 0


def clear(name: str) -> None:
    if available():
        subprocess.run(["nft", "delete", "table", "ip", name], capture_output=True)
