"""A pod on this node: init containers in order, then the app containers; restarts by the pod's
restartPolicy; graceful termination (TERM, then KILL after the grace period)."""
from __future__ import annotations

import os
from typing import Callable

import structlog

from actors.kubelet import eviction, probes, termination
from actors.kubelet.containers import Container
from actors.kubelet.envfrom import ConfigError, container_env
from actors.kubelet.fieldpath import PodFacts
from actors.kubelet.podobjects import PodObjects
from actors.kubelet.podtoken import PodToken
from actors.kubelet.probes import Offload, ProbeState
from actors.kubelet.runtimes.base import Runtime, StartError
from actors.kubelet.serviceenv import linked, service_env
from actors.kubelet.volumes.manager import PodVolumes
from actors.kubelet.volumes.payload import MountError

log = structlog.get_logger("kubelet")
CONFIG_RETRY_S = 2.0  # a container whose configuration failed is tried again this often (each sync, in Kubernetes)


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
        self.token = PodToken()  # its bound ServiceAccount token, refreshed before 80% of its life
        self.status_memo = None  # status.Memo: NodeAgent._status
        self.quiet_to = 0.0  # NodeAgent.sync_all leaves the pod be until then
        self.admitted = False  # the node's own admission has answered (NodeAgent._admitted)
        self.refused: tuple[str, str] | None = None  # its (reason, message) if it refused: the pod failed
        self.objects = PodObjects(pod, clock)  # the ConfigMaps and Secrets it references (NodeAgent fetches)
        self.volumes: PodVolumes | None = None  # its volumes on the node, where the runtime mounts them (cri)
        self.allocatable: dict = {}  # the node's, for resourceFieldRef without a limit

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
        if self.terminating or self.refused:
            self._stop_all(now)  # a pod refused or evicted runs nothing (whatever ran is killed)
            if self.refused and self.refused[0] == eviction.REASON and self.volumes is not None and self.stopped():
                self.volumes.teardown()  # as the kubelet unmounts a terminated pod's volumes: the disk given back
        if self.terminating or self.refused or self.credentials is None or not self.objects.ready or \
                not self._inits_done(now):
            return
        for c in [i for i in self.inits if i.sidecar] + self.apps:
            if not c.running and self._wants_run(c) and now >= c.next_start:
                self._start(c, now)

    def quiet_until(self, synced_at: float) -> float:
        """Until when, after a sync that began at `synced_at`, another changes nothing by itself: its
        containers' next change as the runtime foresees it (done starting, exiting) or a restart's
        back-off. 0.0 (synced every tick) while it terminates, waits for credentials, was killed by a
        probe, or the runtime cannot foresee (processes exit when they do)."""
        containers = self.inits + self.apps
        if self.terminating or self.credentials is None or not self.objects.ready or \
                any(c.killed_by for c in containers):
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
        self.objects.stale()  # its next start reads them again
        message = termination.message(self.volumes, self.runtime, self.uid, c.spec, c.instances - 1, result.code)
        if message and not c.killed_by:
            c.terminated["message"] = message
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
            cid, env, workdir = c.cid, self._probe_env(c.spec), self.runtime.workdir(self.uid, c.spec)
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
            env = self.env(c.spec)
            mounts = self._mounts(c, env)
        except (ConfigError, MountError) as exc:
            self._not_configured(c, now, "CreateContainerConfigError" if isinstance(exc, ConfigError)
                                 else "ContainerCreating", str(exc))
            return
        except (KeyError, TypeError, ValueError, AttributeError, OSError) as exc:  # a spec let by, the node's disk
            self._not_configured(c, now, "CreateContainerConfigError", f"{type(exc).__name__}: {exc}")
            return
        try:
            cid = self.runtime.start(self.pod, c.spec, c.instances, env, mounts, self._pull_secrets())
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
                log.info("kubelet.container_stopping", pod=self.key, container=c.name, signal=signal_name)

    def over_limit(self) -> str | None:
        """The eviction manager's message if one of its emptyDirs holds more than its sizeLimit (cri nodes)."""
        if self.volumes is None or self.refused or self.terminating or not eviction.limits(self.pod):
            return None
        volumes = {v["name"]: v for v in self.pod["spec"].get("volumes") or []}
        return eviction.exceeded(self.pod, lambda name: eviction.disk_usage(self.volumes.path(volumes[name])))

    def evict(self, message: str) -> None:
        """The eviction manager's kill: at once (grace 0), the pod Failed with reason Evicted."""
        self.refused, self.kill_at = (eviction.REASON, message), self.clock()

    def stopped(self) -> bool:
        return not any(c.running for c in self.inits + self.apps)

    def fetch(self, call, done: Callable[[], None]) -> None:
        """Fetch what it references, when due; its projected volumes follow what came (those made:
        after a kubelet restart too, the folders being there)."""
        def fetched() -> None:
            if self.volumes is not None and not self.terminating:
                self.volumes.refresh(self.pod, self.objects.view(), self.facts())
            done()
        self.objects.refresh(call, fetched, periodic=self.volumes is not None and self.volumes.projects(self.pod))

    def _not_configured(self, c: Container, now: float, reason: str, message: str) -> None:
        """Its env or volumes could not be made: it waits with the reason, and the next try (soon, no
        back-off) sees the objects fetched again."""
        c.waiting = (reason, message)
        c.next_start = now + CONFIG_RETRY_S
        self.objects.stale()
        log.info("kubelet.config_failed", pod=self.key, container=c.name, reason=reason, message=message[:200])

    def _mounts(self, c: Container, env: dict[str, str]) -> list[dict]:
        """The container's mounts, its pod's volumes made first (none where the runtime mounts nothing)."""
        if self.volumes is None:
            return []
        self.volumes.setup(self.pod, self.objects.view(), self.facts())
        return self.volumes.mounts(self.pod, c.spec, c.instances, env)

    def _pull_secrets(self) -> list[dict]:
        """The pod's imagePullSecrets as fetched; one that could not be read is left out (the kubelet
        pulls without it: "Unable to retrieve some image pull secrets")."""
        view = self.objects.view()
        found = [view.get(("Secret", ref.get("name", ""))) for ref in self.pod["spec"].get("imagePullSecrets") or []]
        return [secret for secret in found if isinstance(secret, dict)]

    def facts(self) -> PodFacts:
        return PodFacts((self.pod_ip,) if self.pod_ip else (), (self.node_ip,), self.allocatable, self.token.value)

    def env(self, container: dict) -> dict[str, str]:
        """The host's PATH, what Kubernetes sets, then envFrom and env (envfrom.py); raises ConfigError."""
        meta, spec = self.pod["metadata"], self.pod["spec"]
        links = linked(self.services, meta.get("namespace", ""), spec.get("enableServiceLinks", True) is not False)
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOSTNAME": meta["name"], **service_env(links),
                **(self.credentials or {})}
        return container_env(self.pod, container, self.objects.view(), self.facts(), base)

    def _probe_env(self, container: dict) -> dict[str, str]:
        """An exec probe's environment (the process runtime's): as at start, or without what is gone since."""
        try:
            return self.env(container)
        except ConfigError:
            return self.env({"name": container.get("name", "")})

    def _rev(self) -> str:
        return self.pod["metadata"].get("resourceVersion", "")
