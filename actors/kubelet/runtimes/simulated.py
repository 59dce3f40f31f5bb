"""The `simulated` runtime: containers "run" without processes. Annotations on the pod set how:
`kubus.io/simulated-startup-seconds`, `kubus.io/simulated-run-seconds` and
`kubus.io/simulated-exit-code` (without an exit code a container runs until stopped)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from actors.kubelet.runtimes.base import Exited

STARTUP = "kubus.io/simulated-startup-seconds"
RUN = "kubus.io/simulated-run-seconds"
EXIT_CODE = "kubus.io/simulated-exit-code"
SIGNAL_CODES = {"TERM": 143, "KILL": 137}


@dataclass
class _Sim:
    ready_at: float
    exit_at: float | None
    code: int
    stopped: int | None = None


class SimulatedRuntime:
    name = "simulated"
    version = "simulated://kubus"
    probes_run = False

    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self._running: dict[str, _Sim] = {}

    def start(self, pod: dict, container: dict, instance: int, env: dict[str, str]) -> str:
        notes = pod["metadata"].get("annotations") or {}
        now = self.clock()
        ready_at = now + float(notes.get(STARTUP, 0))
        exit_at = ready_at + float(notes.get(RUN, 0)) if EXIT_CODE in notes else None
        cid = f"{pod['metadata']['uid']}/{container['name']}.{instance}"
        self._running[cid] = _Sim(ready_at, exit_at, int(notes.get(EXIT_CODE, 0)))
        return cid

    def poll(self, container_id: str) -> Exited | None:
        sim = self._running.get(container_id)
        if sim is None:
            return Exited(SIGNAL_CODES["KILL"], "unknown to the runtime")
        if sim.stopped is not None:
            return Exited(sim.stopped)
        if sim.exit_at is not None and self.clock() >= sim.exit_at:
            return Exited(sim.code)
        return None

    def starting(self, container_id: str) -> bool:
        sim = self._running.get(container_id)
        return sim is not None and self.clock() < sim.ready_at

    def stop(self, container_id: str, signal_name: str) -> None:
        sim = self._running.get(container_id)
        if sim is not None and sim.stopped is None:
            sim.stopped = SIGNAL_CODES[signal_name]

    def adopt(self, pod_uid: str) -> dict[str, tuple[str, int]]:
        return {}

    def forget(self, pod_uid: str) -> None:
        for cid in [c for c in self._running if c.startswith(pod_uid + "/")]:
            del self._running[cid]

    def known_pods(self) -> list[str]:
        return sorted({cid.split("/", 1)[0] for cid in self._running})

    def workdir(self, pod_uid: str, container: dict) -> str | None:
        return None

    def log_path(self, pod_uid: str, container: str, instance: int) -> str | None:
        return None
