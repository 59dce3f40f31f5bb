"""The cri runtime's periodic work, each on its own daemon thread so that the kubelet's loop never
waits on containerd or on the disk: log rotation (`container_log_monitor_interval`, the kubelet's
containerLogMonitorInterval) and, for a containerd the kubelet started itself, the watchdog."""
from __future__ import annotations

import threading
from typing import Callable

import structlog

from actors.kubelet.cri import rotation
from actors.kubelet.cri.client import RuntimeClient
from actors.kubelet.cri.containerd import Containerd
from actors.kubelet.cri.watchdog import CHECK_S, Watchdog
from actors.kubelet.logfiles import Limits

log = structlog.get_logger("kubelet")


def every(interval: float, work: Callable[[], object], name: str) -> threading.Event:
    """Run `work` every `interval` seconds on a daemon thread until the returned event is set; a
    failing round is logged and the next one comes."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval):
            try:
                work()
            except Exception:  # noqa: BLE001 - one bad round must not end the timer
                log.exception("kubelet.upkeep_failed", work=name)

    threading.Thread(target=loop, name=name, daemon=True).start()
    return stop


def start(client: RuntimeClient, node: str, limits: Limits, rotate_every: float,
          daemon: Containerd | None) -> list[threading.Event]:
    """Start a node's upkeep; the events that stop it."""
    stops = [every(rotate_every, lambda: rotation.rotate_running(client, node, limits), f"cri-logs-{node}")]
    if daemon is not None:
        stops.append(every(CHECK_S, Watchdog(daemon, node).check, f"cri-watchdog-{node}"))
    return stops
