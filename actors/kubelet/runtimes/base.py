"""What the kubelet asks of a container runtime."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass
class Exited:
    code: int
    message: str = ""
    reason: str = ""  # Completed, Error, OOMKilled, ... (derived from the code when empty)


class StartError(Exception):
    """The container could not start; `reason` is the waiting reason Kubernetes would show."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


class Runtime(Protocol):
    name: str
    version: str
    probes_run: bool  # False: containers have nothing to probe and pass their probes

    def start(self, pod: dict, container: dict, instance: int, env: dict[str, str], mounts: list[dict] = (),
              pull_secrets: list[dict] = ()) -> str:
        """Start a container instance; returns its id. Raises StartError. `mounts` are CRI mounts
        (container_path, host_path, readonly) of the volumes the kubelet made (cri only); `pull_secrets`
        the pod's imagePullSecrets that could be read (cri only: its image pull's credentials)."""

    def poll(self, container_id: str) -> Exited | None:
        """None while it runs."""

    def stop(self, container_id: str, signal_name: str) -> None:
        """Send TERM or KILL to the container."""

    def adopt(self, pod_uid: str) -> dict[str, tuple[str, int]]:
        """After a restart: container name -> (id, instance number) of its latest instance, whether it
        still runs or has exited (poll tells which)."""

    def forget(self, pod_uid: str) -> None:
        """Remove what is left of a pod (logs stay until the pod is gone)."""

    def known_pods(self) -> list[str]:
        """Pod uids the runtime has state for."""

    def close(self) -> None:
        """The kubelet stops: work in hand is dropped, calls in flight end (containers outlive a kubelet,
        and the next one finishes what this one left)."""

    def log_path(self, pod_uid: str, container: str, instance: int) -> str | None: ...

    def workdir(self, pod_uid: str, container: dict) -> str | None: ...

    def starting(self, container_id: str) -> bool:
        """Still in its startup delay (simulated) rather than running."""

    def next_change(self, container_ids: list[str], after: float) -> float | None:
        """When the first of these running containers changes by itself (done starting, exited) later
        than `after`; inf if none will, None if the runtime cannot foresee it (the kubelet then polls
        each sync)."""
