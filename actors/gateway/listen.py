"""Where pods reach the gateway: the `kubernetes` Service's ClusterIP, port 443 (Settings.api_service_ip),
as the DNS actor answers on kube-dns's. Bound with IP_FREEBIND, since the address is local to the host
only once the proxy routes the service range there (`ip route add local <range> dev lo`); nothing outside
this host reaches it unless another host routes the service range to this one. Binding port 443 needs
root (or CAP_NET_BIND_SERVICE): without it the gateway says so and serves its own address only."""
from __future__ import annotations

import socket

import structlog

from config.settings import API_SERVICE_PORT, Settings

log = structlog.get_logger()
IP_FREEBIND = getattr(socket, "IP_FREEBIND", 15)


def pod_socket(settings: Settings) -> socket.socket | None:
    address = (settings.api_service_ip, API_SERVICE_PORT)
    if f"{address[0]}:{address[1]}" == settings.gateway_address:
        return None  # its own address already
    sock = service_socket(address, "gateway.no_pod_address",
                          "pods reach the API through the `kubernetes` Service only when the gateway runs as root")
    if sock is None:
        return None
    log.info("gateway.pod_address", address=f"{address[0]}:{address[1]}")
    return sock


def service_socket(address: tuple[str, int], refused: str, hint: str) -> socket.socket | None:
    """A socket bound to a Service's ClusterIP (before the address is local: IP_FREEBIND), or None, said
    with `refused` and `hint`, where it cannot be (not root)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_IP, IP_FREEBIND, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        log.warning(refused, address=f"{address[0]}:{address[1]}", why=str(exc), hint=hint)
        return None
    sock.set_inheritable(False)
    return sock
