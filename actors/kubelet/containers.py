"""One container's life on the node: instances, exits, restarts with Kubernetes' back-off."""
from __future__ import annotations

from dataclasses import dataclass, field

from actors.kubelet.probes import ProbeState, states_for
from actors.kubelet.runtimes.base import Exited
from api.times import rfc3339

BACKOFF_START_S = 10.0
BACKOFF_MAX_S = 300.0
BACKOFF_RESET_S = 600.0  # a container that ran this long starts its back-off over


def exit_reason(code: int) -> str:
    return "Completed" if code == 0 else "Error"


@dataclass
class Container:
    spec: dict
    init: bool = False
    cid: str | None = None  # the running instance
    instances: int = 0
    restarts: int = 0
    crashes: int = 0  # exits in a row that led to a restart, for the back-off
    started_at: float = 0.0
    next_start: float = 0.0
    waiting: tuple[str, str] = ("ContainerCreating", "")
    terminated: dict | None = None  # the last instance's terminated state
    last_state: dict = field(default_factory=dict)
    signaled: str = ""  # TERM or KILL once stopping
    probes: dict[str, ProbeState] = field(default_factory=dict)
    killed_by: str = ""  # the probe that failed, when the kubelet killed the instance
    kill_at: float = 0.0  # when a probe-killed instance that ignores TERM gets KILL

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def sidecar(self) -> bool:
        """An init container with `restartPolicy: Always`: it starts in order, then runs beside the apps."""
        return self.init and self.spec.get("restartPolicy") == "Always"

    @property
    def running(self) -> bool:
        return self.cid is not None

    def started(self, cid: str, now: float) -> None:
        self.restarts = self.instances  # every instance after the first is a restart
        self.cid, self.started_at, self.signaled, self.killed_by = cid, now, "", ""
        self.probes = states_for(self.spec, now)
        self.instances += 1
        if self.terminated:
            self.last_state = {"terminated": self.terminated}
        self.terminated = None

    def exited(self, result: Exited, now: float) -> None:
        self.cid = None
        self.terminated = {"exitCode": result.code, "reason": result.reason or exit_reason(result.code),
                           "startedAt": rfc3339(self.started_at), "finishedAt": rfc3339(now),
                           "containerID": None}
        if result.message:
            self.terminated["message"] = result.message
        if self.killed_by:
            self.terminated["message"] = f"Container {self.name} failed {self.killed_by} probe, will be restarted"
        self.probes = {}

    def schedule_restart(self, now: float) -> float:
        """The first crash restarts at once; then 10 s doubling to 5 min; a long run resets it."""
        if self.started_at and now - self.started_at >= BACKOFF_RESET_S:
            self.crashes = 0
        delay = 0.0 if self.crashes == 0 else min(BACKOFF_START_S * 2 ** (self.crashes - 1), BACKOFF_MAX_S)
        self.crashes += 1
        self.next_start = now + delay
        return delay

    def should_restart(self, policy: str) -> bool:
        code = (self.terminated or {}).get("exitCode", 0)
        return policy == "Always" or (policy == "OnFailure" and code != 0)

    @property
    def started_ok(self) -> bool:
        """Running, and past its startup probe if it has one."""
        startup = self.probes.get("startupProbe")
        return self.running and (startup is None or startup.result is True)

    @property
    def ready(self) -> bool:
        readiness = self.probes.get("readinessProbe")
        return self.started_ok and (not self.init or self.sidecar) and (readiness is None or readiness.result is True)

    def active_probes(self) -> list[str]:
        """While a startup probe has not succeeded, the other probes wait."""
        if not self.running:
            return []
        if "startupProbe" in self.probes and self.probes["startupProbe"].result is not True:
            return ["startupProbe"]
        return [k for k in ("livenessProbe", "readinessProbe") if k in self.probes]

    def succeeded(self) -> bool:
        return self.terminated is not None and self.terminated["exitCode"] == 0
