"""Probes as Kubernetes counts them: exec, httpGet and tcpSocket, each with an initial delay, a
period, a timeout, and success / failure thresholds. Checks run on worker threads."""
from __future__ import annotations

import socket
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Callable

KINDS = ("startupProbe", "livenessProbe", "readinessProbe")


def _port(port, container: dict) -> int:
    if isinstance(port, int) or str(port).isdigit():
        return int(port)
    for p in container.get("ports") or []:
        if p.get("name") == port:
            return int(p["containerPort"])
    raise ValueError(f"no container port named {port!r}")


def check(probe: dict, container: dict, env: dict[str, str], host: str, workdir: str | None,
          run: Callable[[list[str], int], int] | None = None) -> bool:
    """Run one probe (blocking): True on success. An exec probe runs where the container runs: in it,
    through `run` (the runtime's exec: command, timeout -> exit code), or as a host process."""
    timeout = probe.get("timeoutSeconds", 1)
    try:
        if probe.get("exec") and run is not None:
            return run(probe["exec"]["command"], timeout) == 0
        if probe.get("exec"):
            done = subprocess.run(probe["exec"]["command"], env=env, cwd=workdir, timeout=timeout,
                                  capture_output=True)
            return done.returncode == 0
        if probe.get("httpGet"):
            get = probe["httpGet"]
            url = f"{(get.get('scheme') or 'HTTP').lower()}://{get.get('host') or host}:{_port(get['port'], container)}" \
                  f"{get.get('path') or '/'}"
            headers = {h["name"]: h["value"] for h in get.get("httpHeaders") or []}
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as resp:
                    return 200 <= resp.status < 400
            except urllib.error.HTTPError as exc:
                return 200 <= exc.code < 400
        if probe.get("tcpSocket"):
            sock = probe["tcpSocket"]
            socket.create_connection((sock.get("host") or host, _port(sock["port"], container)), timeout).close()
            return True
    except (OSError, subprocess.SubprocessError, ValueError):
        return False
    return False


@dataclass
class ProbeState:
    """Consecutive results of one probe of one container instance."""

    probe: dict
    started_at: float
    result: bool | None = None  # None until the thresholds decide
    successes: int = 0
    failures: int = 0
    next_due: float = 0.0
    in_flight: bool = False

    def __post_init__(self) -> None:
        self.next_due = self.started_at + self.probe.get("initialDelaySeconds", 0)

    def due(self, now: float) -> bool:
        return not self.in_flight and now >= self.next_due

    def record(self, ok: bool, now: float) -> None:
        self.in_flight = False
        self.next_due = now + self.probe.get("periodSeconds", 10)
        if ok:
            self.successes, self.failures = self.successes + 1, 0
            if self.successes >= self.probe.get("successThreshold", 1):
                self.result = True
        else:
            self.failures, self.successes = self.failures + 1, 0
            if self.failures >= self.probe.get("failureThreshold", 3):
                self.result = False


def states_for(container: dict, now: float) -> dict[str, ProbeState]:
    return {kind: ProbeState(container[kind], now) for kind in KINDS if container.get(kind)}


Offload = Callable[[Callable[[], bool], Callable[[bool], None]], None]  # run off the loop, answer on it
