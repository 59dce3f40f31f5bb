"""A pod on this node: init containers in order, then the app containers; restarts by the pod's
restartPolicy; graceful termination (TERM, then KILL after the grace period)."""
from __future__ import annotations

import os
from typing import Callable

import structlog

from actors.kubelet import probes
from actors.kubelet.containers import Container
from actors.kubelet.probes import Offload, ProbeState
from actors.kubelet.runtimes.base import Runtime, StartError
from actors.kubelet.serviceenv import service_env

log = structlog.get_logger("kubelet")


class PodWorker:
    def __init__(self, pod: dict, runtime: Runtime, clock: Callable[[], float], node_ip: str,
                 offload: Offload | None = None):
        self.pod = pod
        self.offload = offload
        self.runtime = runtime
        self.clock = clock
        self.node_ip = node_ip
        self.pod_ip = node_ip  # until the node's range gives it one of its own (or with hostNetwork)
        self.inits = [Container(c, init=True) for c in pod["spec"].get("initContainers") or []]
        self.apps = [Container(c) for c in pod["spec"]["containers"]]
        self.admitted_at = clock()
        self.kill_at: float | None = None
        self.failed_init = False
        self.services: Callable[[str], list[dict]] = lambda namespace: []  # a namespace's Services
        self.credentials: dict[str, str] | None = {}  # None: being fetched, nothing starts until they come
        self.status_memo = None  # status.Memo: NodeAgent._status
        self.quiet_to = 0.0  # NodeAgent.sync_all leaves the pod be until then
        self.admitted = False  # the node's own admission has answered (NodeAgent._admitted)
        self.refused: tuple[str, str] | None = None  # its (reason, message) if it refused: the pod failed

    @property
    def uid(self) -> str:
        return self.pod["metadata"]["uid"]

    @property
    def key(self) -> str:
        return f"{self.pod['metadata'].get('namespace')}/{self.pod['metadata']['name']}"

    @property
    def policy(self) -> str:
        return self.pod["spec"].get("restartPolicy", "Always")

    @property
    def terminating(self) -> bool:
        return bool(self.pod["metadata"].get("deletionTimestamp"))

    def adopt(self, latest: dict[str, tuple[str, int]]) -> None:
        """After a kubelet restart: each container's latest instance is taken over as if just started.
        The next sync polls it: one still running goes on, one that exited meanwhile is handled like
        any exit (restartPolicy, back-off), and instance numbers and restartCount carry on."""
        now = self.clock()
        for c in self.apps + self.inits:
            if c.name in latest:
                c.instances = latest[c.name][1]
                c.started(latest[c.name][0], now)
        if any(c.name in latest for c in self.apps):
            for c in self.inits:  # the apps ran, so the inits had completed
                if c.name not in latest:
                    c.terminated = {"exitCode": 0, "reason": "Completed"}

    # ---- driving ---------------------------------------------------------------------------------
    def sync(self) -> None:
        now = self.clock()
        for c in self.inits + self.apps:
            if c.running:
                self._poll(c, now)
            if c.running and not self.terminating:
                self._probe(c, now)
            if c.running and c.killed_by and now >= c.kill_at and c.signaled != "KILL":
                self.runtime.stop(c.cid, "KILL")
                c.signaled = "KILL"
        if self.terminating:
            self._stop_all(now)
        elif self.refused or self.credentials is None or not self._inits_done(now):
            return
        else:
            for c in [i for i in self.inits if i.sidecar] + self.apps:
                if not c.running and self._wants_run(c) and now >= c.next_start:
                    self._start(c, now)

    def quiet_until(self, synced_at: float) -> float:
        """Until when, after a sync that began at `synced_at`, another changes nothing by itself: its
        containers' next change as the runtime foresees it (done starting, exiting) or a restart's
        back-off. 0.0 (synced every tick) while it terminates, waits for credentials, was killed by a
        probe, or the runtime cannot foresee (processes exit when they do)."""
        containers = self.inits + self.apps
        if self.terminating or self.credentials is None or any(c.killed_by for c in containers):
            return 0.0
        changes = self.runtime.next_change([c.cid for c in containers if c.running], synced_at)
        if changes is None:
            return 0.0
        return min([changes, *(c.next_start for c in containers if not c.running and self._wants_run(c))])

    def _poll(self, c: Container, now: float) -> None:
        result = self.runtime.poll(c.cid)
        if result is None:
            return
        ref = getattr(self.runtime, "container_ref", lambda cid: None)(c.cid)
        c.exited(result, now)
        c.terminated["containerID"] = ref
        log.info("kubelet.container_exited", pod=self.key, container=c.name, code=result.code, rev=self._rev())
        if not self.terminating and c.should_restart(self.policy_of(c)):
            delay = c.schedule_restart(now)
            c.waiting = ("CrashLoopBackOff", f"back-off {delay:g}s restarting failed container={c.name} "
                                             f"pod={self.pod['metadata']['name']}_{self.pod['metadata'].get('namespace')}"
                                             f"({self.uid})") if delay else ("ContainerCreating", "")

    def _probe(self, c: Container, now: float) -> None:
        """Start the probes that are due; their answers come back on the loop. A runtime without
        processes has nothing to probe: its containers pass."""
        if self.offload is None or not self.runtime.probes_run:
            for state in c.probes.values():
                state.result = True
            return
        if self.runtime.starting(c.cid):
            return  # not running yet (its image, its sandbox): probes begin when it runs, as the kubelet's
        for kind in c.active_probes():
            state = c.probes[kind]
            if not state.due(now):
                continue
            state.in_flight = True
            cid, env, workdir = c.cid, self.env(c.spec), self.runtime.workdir(self.uid, c.spec)
            inside = getattr(self.runtime, "exec_sync", None)  # an exec probe runs in the container
            run = (lambda command, timeout, cid=cid: inside(cid, command, timeout)) if inside else None
            self.offload(lambda s=state: probes.check(s.probe, c.spec, env, self.pod_ip, workdir, run),
                         lambda ok, k=kind, s=state: self._probed(c, cid, k, s, ok))

    def _probed(self, c: Container, cid: str, kind: str, state: ProbeState, ok: bool) -> None:
        if c.cid != cid:
            return  # an answer for an instance that is gone
        state.record(ok, self.clock())
        if state.result is False and kind in ("livenessProbe", "startupProbe") and not c.killed_by:
            c.killed_by = "liveness" if kind == "livenessProbe" else "startup"
            log.info("kubelet.probe_failed", pod=self.key, container=c.name, probe=kind, rev=self._rev())
            self.runtime.stop(c.cid, "TERM")
            c.signaled = "TERM"
            c.kill_at = self.clock() + self._grace(state.probe)  # KILL then, if it is still there

    def _grace(self, probe: dict) -> float:
        grace = probe.get("terminationGracePeriodSeconds")
        return grace if grace is not None else self.pod["spec"].get("terminationGracePeriodSeconds", 30)

    def policy_of(self, c: Container) -> str:
        """Sidecars always restart; other init containers only on failure, unless the pod says Never."""
        return "Always" if c.sidecar else self._init_policy() if c.init else self.policy

    def _init_policy(self) -> str:
        return "Never" if self.policy == "Never" else "OnFailure"

    def _inits_done(self, now: float) -> bool:
        for c in self.inits:
            if self.init_done(c):
                continue
            if c.running:
                return False
            if c.terminated is not None and not c.should_restart(self.policy_of(c)):
                self.failed_init = True
                return False
            if now >= c.next_start:
                self._start(c, now)
            return False
        return True

    def init_done(self, c: Container) -> bool:
        """Completed, or for a sidecar, started (past its startup delay and startup probe)."""
        return c.succeeded() or (c.sidecar and c.started_ok and not self.runtime.starting(c.cid))

    def _wants_run(self, c: Container) -> bool:
        return c.instances == 0 or c.should_restart(self.policy_of(c))

    def _start(self, c: Container, now: float) -> None:
        try:
            cid = self.runtime.start(self.pod, c.spec, c.instances, self.env(c.spec))
        except StartError as exc:
            c.waiting = (exc.reason, exc.message)
            c.schedule_restart(now)
            log.info("kubelet.start_failed", pod=self.key, container=c.name, reason=exc.reason)
            return
        c.started(cid, now)
        log.info("kubelet.container_started", pod=self.key, container=c.name, instance=c.instances, rev=self._rev())

    def _stop_all(self, now: float) -> None:
        if self.kill_at is None:
            grace = self.pod["metadata"].get("deletionGracePeriodSeconds")
            self.kill_at = now + (30 if grace is None else grace)
        signal_name = "KILL" if now >= self.kill_at else "TERM"
        for c in self.inits + self.apps:
            if c.running and c.signaled != signal_name:
                self.runtime.stop(c.cid, signal_name)
                c.signaled = signal_name

    def stopped(self) -> bool:
        return not any(c.running for c in self.inits + self.apps)

    def env(self, container: dict) -> dict[str, str]:
        """The host's PATH, what Kubernetes sets, then the container's env (fieldRef resolved)."""
        meta, spec = self.pod["metadata"], self.pod["spec"]
        fields = {"metadata.name": meta["name"], "metadata.namespace": meta.get("namespace", ""),
                  "metadata.uid": self.uid, "spec.nodeName": spec.get("nodeName", ""),
                  "spec.serviceAccountName": spec.get("serviceAccountName", "default"),
                  "status.podIP": self.pod_ip, "status.hostIP": self.node_ip}
        links = self.services(meta.get("namespace", "")) if spec.get("enableServiceLinks", True) else []
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOSTNAME": meta["name"], **service_env(links),
               "KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": "443", **(self.credentials or {})}
        for var in container.get("env") or []:
            ref = ((var.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
            env[var["name"]] = fields.get(ref, "") if ref else var.get("value", "")
        return env

    def _rev(self) -> str:
        return self.pod["metadata"].get("resourceVersion", "")
