"""The `simulated` runtime: containers "run" without processes. Annotations on the pod set how:
`kubus.io/simulated-startup-seconds`, `kubus.io/simulated-run-seconds` and
`kubus.io/simulated-exit-code` (without an exit code a container runs until stopped); what each running
container uses, `kubus.io/simulated-cpu` (cores, `250m`) and `kubus.io/simulated-memory` (`64Mi`), read at
every sample, so a test changes a pod's usage by annotating it.

An init container runs to completion, as KWOK's stages have it: it runs for the startup time, then
exits with `kubus.io/simulated-init-exit-code` (0 unless set). A sidecar (an init container with
`restartPolicy: Always`) starts and runs like an app container."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from actors.kubelet.runtimes.base import Exited
from api.quantity import milli, value

STARTUP = "kubus.io/simulated-startup-seconds"
RUN = "kubus.io/simulated-run-seconds"
EXIT_CODE = "kubus.io/simulated-exit-code"
INIT_EXIT_CODE = "kubus.io/simulated-init-exit-code"
CPU, MEMORY = "kubus.io/simulated-cpu", "kubus.io/simulated-memory"
SIGNAL_CODES = {"TERM": 143, "KILL": 137}


@dataclass
class _Sim:
    ready_at: float
    exit_at: float | None
    code: int
    stopped: int | None = None


def runs_to_completion(pod: dict, container: dict) -> bool:
    """An init container that is not a sidecar."""
    inits = {c["name"] for c in pod["spec"].get("initContainers") or []}
    return container["name"] in inits and container.get("restartPolicy") != "Always"


def plan(pod: dict, container: dict, now: float) -> _Sim:
    """When the container is up, when it exits and with what code, from the pod's annotations."""
    notes = pod["metadata"].get("annotations") or {}
    startup = float(notes.get(STARTUP, 0))
    if runs_to_completion(pod, container):
        return _Sim(now, now + startup, int(notes.get(INIT_EXIT_CODE, 0)))
    exit_at = now + startup + float(notes.get(RUN, 0)) if EXIT_CODE in notes else None
    return _Sim(now + startup, exit_at, int(notes.get(EXIT_CODE, 0)))


class SimulatedRuntime:
    name = "simulated"
    version = "simulated://kubus"
    probes_run = False

    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self._running: dict[str, _Sim] = {}
        self._used: dict[str, tuple[float, int]] = {}  # container -> (when, cumulative core-nanoseconds)

    def start(self, pod: dict, container: dict, instance: int, env: dict[str, str], mounts: list[dict] = (),
              pull_secrets: list[dict] = ()) -> str:
        """Volumes are accepted and mount nothing: a simulated container has no files."""
        cid = f"{pod['metadata']['uid']}/{container['name']}.{instance}"
        self._running[cid] = plan(pod, container, self.clock())
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

    def next_change(self, container_ids: list[str], after: float) -> float | None:
        times = [math.inf]
        for cid in container_ids:
            sim = self._running.get(cid)
            if sim is None or sim.stopped is not None:
                return after  # the next poll reports it gone or stopped
            times += [t for t in (sim.ready_at, sim.exit_at) if t is not None and t > after]
        return min(times)

    def stop(self, container_id: str, signal_name: str) -> None:
        sim = self._running.get(container_id)
        if sim is not None and sim.stopped is None:
            sim.stopped = SIGNAL_CODES[signal_name]

    def usage(self, container_id: str, pod: dict, now: float) -> tuple[int, int] | None:
        """(cumulative core-nanoseconds, working-set bytes) of a running container: the CPU the pod's
        annotation names integrated over the time since the last sample."""
        sim = self._running.get(container_id)
        if sim is None or sim.stopped is not None or (sim.exit_at is not None and now >= sim.exit_at):
            return None
        notes = pod["metadata"].get("annotations") or {}
        since, total = self._used.get(container_id, (now, 0))  # the counter starts at the first sample
        total += int(milli(notes.get(CPU, "0")) * 1_000_000 * max(0.0, now - since))
        self._used[container_id] = (now, total)
        return total, value(notes.get(MEMORY, "0"))

    def adopt(self, pod_uid: str) -> dict[str, tuple[str, int]]:
        return {}

    def forget(self, pod_uid: str) -> None:
        for cid in [c for c in self._running if c.startswith(pod_uid + "/")]:
            del self._running[cid]
            self._used.pop(cid, None)

    def close(self) -> None:
        pass  # nothing in flight: its containers are entries in memory

    def known_pods(self) -> list[str]:
        return sorted({cid.split("/", 1)[0] for cid in self._running})

    def workdir(self, pod_uid: str, container: dict) -> str | None:
        return None

    def log_path(self, pod_uid: str, container: str, instance: int) -> str | None:
        return None
