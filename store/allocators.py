"""ClusterIP and NodePort allocation, done where it cannot race: in the store, the sole writer (Kubernetes
makes an IPAddress object per IP and lets AlreadyExists settle races; one writer needs no such object).
Both pools hand out a random free value from the upper band first and keep the lower band for values
people choose (KEP-3070, KEP-3668)."""
from __future__ import annotations

import ipaddress
import itertools
import random

from api.service import NEEDS_NODE_PORTS, needs_cluster_ip, node_ports
from api.status import Cause, StatusError


class Pool:
    """The integers [base, base + size): which are taken, and a free one when asked."""

    def __init__(self, base: int, size: int, offset: int):
        self.base, self.size, self.offset = base, size, offset
        self.used: set[int] = set()

    def __contains__(self, value: int) -> bool:
        return self.base <= value < self.base + self.size

    def take(self, exclude: set[int] = frozenset()) -> int | None:
        """A free value: a random start in the upper band scanning forward, then the lower band."""
        for low, high in ((self.base + self.offset, self.base + self.size), (self.base, self.base + self.offset)):
            if high <= low:
                continue
            start = random.randrange(low, high)
            for value in itertools.chain(range(start, high), range(low, start)):  # not a tuple: a /12 is 1M
                if value not in self.used and value not in exclude:
                    return value
        return None


def ip_pool(cidr: str) -> Pool:
    """Every address of the range but the network and broadcast addresses."""
    net = ipaddress.IPv4Network(cidr)
    size = max(net.num_addresses - 2, 0)
    offset = 0 if net.num_addresses <= 16 else min(max(16, net.num_addresses // 16), 256)
    return Pool(int(net.network_address) + 1, size, offset)


def port_pool(spec: str) -> Pool:
    """A `base-last` range such as Kubernetes' default 30000-32767."""
    first, _, last = spec.partition("-")
    size = int(last) - int(first) + 1
    return Pool(int(first), size, 0 if size <= 16 else min(max(16, size // 32), 128))


class Allocation:
    """The cluster's Service IPs and node ports, kept equal to what stored Services hold."""

    def __init__(self, service_cidr: str, port_range: str):
        self.cidr, self.port_range = service_cidr, port_range
        self.ips, self.ports = ip_pool(service_cidr), port_pool(port_range)

    # ---- bookkeeping: follows the stored objects -------------------------------------------------
    def hold(self, service: dict, on: bool) -> None:
        spec = service.get("spec") or {}
        for ip in spec.get("clusterIPs") or []:
            value = _ip_int(ip)
            if value is not None:
                (self.ips.used.add if on else self.ips.used.discard)(value)
        for port in node_ports(spec):
            (self.ports.used.add if on else self.ports.used.discard)(port)

    # ---- allocation: before a create or update commits -------------------------------------------
    def cluster_ip(self, requested: str | None, own: tuple[str, ...] = ()) -> str:
        if not requested:
            value = self.ips.take()
            if value is None:
                raise StatusError("InternalError", "Internal error occurred: failed to allocate a serviceIP: "
                                                   "range is full")
            return str(ipaddress.IPv4Address(value))
        value = _ip_int(requested)
        if value is None or value not in self.ips:
            raise _ip_error(requested, "the provided network does not match the current range")
        if value in self.ips.used and requested not in own:
            raise _ip_error(requested, "provided IP is already allocated")
        return requested

    def node_port(self, path: str, requested: int | None, own: set[int], taken: set[int]) -> int:
        """`own`: the ports the stored Service holds; `taken`: those this request already gave out."""
        if not requested:
            value = self.ports.take(exclude=taken)
            if value is None:
                raise StatusError("InternalError", "Internal error occurred: failed to allocate a nodePort: "
                                                   "range is full")
            return value
        if requested not in self.ports:
            raise _port_error(path, requested, f"provided port is not in the valid range. The range of valid ports "
                                               f"is {self.port_range}")
        if (requested in self.ports.used and requested not in own) or requested in taken:
            raise _port_error(path, requested, "provided port is already allocated")
        return requested

    # ---- a Service as it will be stored ------------------------------------------------------------
    def assign(self, service: dict, old: dict | None) -> dict:
        """The Service with its IP and node ports given, checked or kept from `old` (an update)."""
        spec = dict(service.get("spec") or {})
        old_spec = (old or {}).get("spec") or {}
        if needs_cluster_ip(spec):
            ip = self.cluster_ip(spec.get("clusterIP"), tuple(old_spec.get("clusterIPs") or ()))
            spec["clusterIP"], spec["clusterIPs"] = ip, [ip]
        if spec.get("type") in NEEDS_NODE_PORTS:
            spec["ports"] = self._with_node_ports(spec.get("ports") or [], set(node_ports(old_spec)))
        return {**service, "spec": spec}

    def _with_node_ports(self, ports: list[dict], own: set[int]) -> list[dict]:
        """Ports of one number (53/TCP and 53/UDP) share a node port unless the user chose them."""
        taken: set[int] = set()
        by_number: dict[int, int] = {}
        out = []
        for i, port in enumerate(ports):
            requested = port.get("nodePort") or by_number.get(port.get("port"))
            shared = not port.get("nodePort") and requested is not None
            value = requested if shared else self.node_port(f"spec.ports[{i}].nodePort", requested, own, taken)
            taken.add(value)
            by_number.setdefault(port.get("port"), value)
            out.append({**port, "nodePort": value})
        return out


def _ip_int(ip: str) -> int | None:
    try:
        return int(ipaddress.IPv4Address(ip))
    except ValueError:
        return None


class AllocationError(StatusError):
    """An Invalid answer whose object name the store fills in."""


def _ip_error(ip: str, why: str) -> StatusError:
    return AllocationError("Invalid", "", [Cause("spec.clusterIPs", f'Invalid value: ["{ip}"]: failed to allocate '
                                                                    f'IP {ip}: {why}')])


def _port_error(path: str, port: int, why: str) -> StatusError:
    return AllocationError("Invalid", "", [Cause(path, f"Invalid value: {port}: {why}")])
