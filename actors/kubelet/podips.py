"""A node's pod addresses out of its podCIDR, as a CNI plugin's host-local IPAM gives them: the lowest
free address, the network's first host kept for the node's bridge. Runtimes that cannot give a pod a
network of its own (the process runtime today) put the node's range on loopback instead — 10.244.3.0/24
becomes 127.244.3.0/24, every address of which a host process can bind (docs/networking.md)."""
from __future__ import annotations

import ipaddress


def on_loopback(cidr: str) -> ipaddress.IPv4Network:
    """The same range with its first octet made 127 (the cluster CIDR's other octets keep it unique)."""
    net = ipaddress.IPv4Network(cidr)
    low = int(net.network_address) & 0x00FFFFFF
    return ipaddress.IPv4Network((0x7F000000 | low, max(net.prefixlen, 8)))


class PodAddresses:
    def __init__(self, loopback: bool):
        self.loopback = loopback
        self.network: ipaddress.IPv4Network | None = None
        self.by_uid: dict[str, str] = {}

    def set_cidr(self, cidr: str | None) -> None:
        if cidr and self.network is None:
            self.network = on_loopback(cidr) if self.loopback else ipaddress.IPv4Network(cidr)

    def address_for(self, uid: str, reported: str | None) -> str | None:
        """The pod's address: the one it has, the one its status reports (a kubelet restart adopts
        it), else the lowest free; None while the node has no range."""
        if uid in self.by_uid or self.network is None:
            return self.by_uid.get(uid)
        used = set(self.by_uid.values())
        if reported and reported not in used and self._usable(reported):
            self.by_uid[uid] = reported
            return reported
        hosts = self.network.hosts()
        next(hosts, None)  # the bridge's
        found = next((str(ip) for ip in hosts if str(ip) not in used), None)
        if found:
            self.by_uid[uid] = found
        return found

    def _usable(self, address: str) -> bool:
        try:
            ip = ipaddress.IPv4Address(address)
        except ValueError:
            return False
        return ip in self.network and ip not in (self.network.network_address, self.network.broadcast_address,
                                                 self.network.network_address + 1)

    def release(self, uid: str) -> None:
        self.by_uid.pop(uid, None)
