"""Makes the service range local to the host (`ip route add local <cidr> dev lo table local`), so the
userspace proxy can listen on every ClusterIP as it can on any 127.x address. Needs root and `ip`;
a range inside 127.0.0.0/8 needs nothing. The route goes again when the proxy that added it stops."""
from __future__ import annotations

import ipaddress
import shutil
import subprocess

import structlog

log = structlog.get_logger("proxy")
LOOPBACK = ipaddress.IPv4Network("127.0.0.0/8")


class LocalRoute:
    def __init__(self, cidr: str):
        self.cidr = cidr
        self.added = False

    def ensure(self) -> bool:
        """True when every address of the range can be listened on."""
        if ipaddress.IPv4Network(self.cidr).subnet_of(LOOPBACK):
            return True
        if self._present():
            return True
        if shutil.which("ip") is None:
            log.warning("proxy.no_local_route", cidr=self.cidr, why="the `ip` command is missing")
            return False
        done = subprocess.run(["ip", "route", "add", "local", self.cidr, "dev", "lo", "table", "local"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            log.warning("proxy.no_local_route", cidr=self.cidr, why=done.stderr.strip() or "ip route failed",
                        hint="run as root, or set KUBUS_SERVICE_CIDR to a range inside 127.0.0.0/8")
            return False
        self.added = True
        log.info("proxy.local_route_added", cidr=self.cidr)
        return True

    def _present(self) -> bool:
        shown = subprocess.run(["ip", "route", "show", "table", "local", self.cidr], capture_output=True, text=True)
        return shown.returncode == 0 and shown.stdout.strip().startswith("local")

    def remove(self) -> None:
        if self.added:
            clear(self.cidr)
            self.added = False


def clear(cidr: str) -> None:
    """Take the range's local route away, whoever added it (a proxy killed with SIGKILL leaves it)."""
    if shutil.which("ip") is not None and not ipaddress.IPv4Network(cidr).subnet_of(LOOPBACK):
        subprocess.run(["ip", "route", "del", "local", cidr, "dev", "lo", "table", "local"], capture_output=True)

