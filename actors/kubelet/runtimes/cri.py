"""The `cri` runtime: a pod is a CRI sandbox in containerd, its containers real containers from their
images (k8s-containers.md §4). The kubelet's loop never waits on the runtime: bringing a container up
(the sandbox, the image, create, start) and stopping one run on this runtime's threads, and the loop
reads what they left — a container being brought up is `starting`, with the waiting reason the
kubelet shows (ContainerCreating, ErrImagePull, ImagePullBackOff, CreateContainerConfigError, …),
and is tried again on its back-off until it runs or the pod goes.

What runs is read from the runtime at a bounded rate: one ListContainers and one ListPodSandbox per node
and half second, a ContainerStatus for each container seen exited. A sandbox seen NOTREADY is a changed
one (Sandboxes): its containers are killed, and restarted in a new one. `close` drops work in hand."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import structlog

from actors.kubelet.cri import images, keyring, specs
from actors.kubelet.cri.api import cri_pb2 as pb
from actors.kubelet.cri.client import CRIError, RuntimeClient
from actors.kubelet.cri.cni import NodeNetwork
from actors.kubelet.cri.pulling import Puller
from actors.kubelet.cri.sandboxes import NODE_LABEL, Sandboxes
from actors.kubelet.cri.security import ImageUser
from actors.kubelet.envfrom import with_pod_ip
from actors.kubelet.runtimes.base import Exited, StartError

log = structlog.get_logger("kubelet")
REFRESH_S = 0.5
RETRY_S = 2.0  # a failed bring-up that has no back-off of its own (config errors) is tried again this often
TERM_TIMEOUT_S = 24 * 3600  # TERM waits for the kubelet's own KILL at the end of the grace period


@dataclass
class Instance:
    """One container instance the kubelet asked for: `id` is the runtime's once created."""
    pod_uid: str
    name: str
    attempt: int
    id: str | None = None
    waiting: tuple[str, str] = ("ContainerCreating", "")
    retry_at: float | None = None  # set when bringing it up failed
    busy: bool = False  # a thread works on it
    cancelled: bool = False
    args: tuple = field(default=(), repr=False)  # (pod, container, env, mounts, keyring) to try again with


class CRIRuntime:
    name = "containerd"  # containerID: containerd://<id>
    probes_run = True
    log_format = "cri"  # `<time> <stream> <P|F> <text>` lines (actors/kubelet/cri/crilogs)
    assigns_addresses = True  # the pod IP comes from the sandbox (CNI), not from the kubelet

    def __init__(self, client: RuntimeClient, node: str, logs_root: Path, memory_capacity: int,
                 dns_config: Callable[[dict], dict | None], network: NodeNetwork | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.client, self.node, self.clock, self.network = client, node, clock, network
        self.down = ""  # why there is no runtime at all (containerd could not start here)
        self.pods_root: Path | None = None  # <node home>/pods: where the kubelet makes its pods' volumes
        self.memory_capacity = memory_capacity
        self.sandboxes = Sandboxes(client, node, logs_root, dns_config)
        self.puller = Puller(client, images.PullBackoff(clock))
        self.instances: dict[str, Instance] = {}
        self.states: dict[str, int] = {}  # runtime id -> ContainerState, as last listed
        self.listed_at = -1e9
        self.used: dict[str, tuple[int, int]] = {}  # runtime id -> (cumulative core-ns, working set), as last read
        self.used_at = -1e9
        self.bringing = ThreadPoolExecutor(4, thread_name_prefix="cri-up")
        self.stopping = ThreadPoolExecutor(16, thread_name_prefix="cri-stop")
        try:
            self.version = f"containerd://{client.version().runtime_version}"
        except CRIError:
            self.version = "containerd://unknown"

    # ---- bringing a container up ----------------------------------------------------------------
    def start(self, pod: dict, container: dict, instance: int, env: dict[str, str], mounts: list[dict] = (),
              pull_secrets: list[dict] = ()) -> str:
        uid = pod["metadata"]["uid"]
        cid = f"{uid}/{container['name']}.{instance}"
        self.instances[cid] = Instance(uid, container["name"], instance,
                                       args=(pod, container, env, list(mounts), keyring.from_secrets(pull_secrets)))
        self._bring_up(cid)
        return cid

    def _bring_up(self, cid: str) -> None:
        inst = self.instances[cid]
        inst.busy, inst.retry_at = True, None
        self.bringing.submit(self._up, cid, inst)

    def _up(self, cid: str, inst: Instance) -> None:
        pod, container, env, mounts, pull_keyring = inst.args
        try:
            if self.down:
                raise StartError("ContainerCreating", f"container runtime is down: {self.down}")
            sandbox = self.sandboxes.ensure(pod)
            env = with_pod_ip(container, env, self.sandboxes.ip(inst.pod_uid))
            image = self.puller.ensure(inst.pod_uid, container, pull_keyring)
            user = ImageUser(image.uid.value if image.HasField("uid") else None, image.username)
            config = specs.container_config(pod, container, instance=inst.attempt, env=_image_env(env),
                                            memory_capacity=self.memory_capacity, kind=_kind(pod, container),
                                            mounts=mounts, image_ref=image.id, image_user=user, seccomp_default=True)
            config.setdefault("labels", {})[NODE_LABEL] = self.node
            if inst.cancelled:
                return
            inst.id = self._create(sandbox, config, inst)
            self.client.start_container(inst.id)
            log.info("kubelet.cri_started", pod_uid=inst.pod_uid, container=inst.name, id=inst.id[:12])
            self._remove_older(inst)
        except StartError as exc:
            self._failed(inst, exc.reason, exc.message)
        except CRIError as exc:
            reason = "RunContainerError" if inst.id else "CreateContainerError"
            self._failed(inst, reason, exc.message)
        except Exception as exc:  # noqa: BLE001 - a thread's failure is the container's waiting reason
            log.exception("kubelet.cri_bring_up_failed", pod_uid=inst.pod_uid, container=inst.name)
            self._failed(inst, "CreateContainerError", str(exc))
        finally:
            inst.busy = False
            self.listed_at = -1e9  # the next poll lists again: it may be running now

    def _create(self, sandbox, config: dict, inst: Instance) -> str:
        """Create, or take over the instance a timed-out create made after all (§8.10)."""
        try:
            return self.client.create_container(sandbox.id, config, sandbox.config)
        except CRIError as exc:
            if "is reserved for" not in exc.message:
                raise
            orphan = exc.message.rsplit('"', 2)[-2]
            self.client.remove_container(orphan)
            return self.client.create_container(sandbox.id, config, sandbox.config)

    def _remove_older(self, inst: Instance) -> None:
        """Container garbage collection: one dead instance is kept (its logs are `--previous`), older ones go."""
        labels = {specs.POD_UID: inst.pod_uid, specs.CONTAINER_NAME: inst.name}
        for old in self.client.containers(labels=labels):
            if old.metadata.attempt < inst.attempt - 1 and old.state == pb.CONTAINER_EXITED:
                self.client.remove_container(old.id)
                self.instances.pop(f"{inst.pod_uid}/{inst.name}.{old.metadata.attempt}", None)

    def _failed(self, inst: Instance, reason: str, message: str) -> None:
        if inst.id and reason == "RunContainerError":
            return  # it exists and exited (StartError): poll reports that exit, and the worker restarts it
        inst.id = None
        inst.waiting = (reason, message)
        inst.retry_at = self.clock() + RETRY_S
        log.info("kubelet.cri_waiting", pod_uid=inst.pod_uid, container=inst.name, reason=reason,
                 message=message[:300])

    # ---- what runs ------------------------------------------------------------------------------
    def _list(self) -> None:
        if self.clock() - self.listed_at < REFRESH_S:
            return
        self.listed_at = self.clock()
        try:
            listed = self.client.containers(labels={NODE_LABEL: self.node})
            sandboxes = self.client.sandboxes(labels={NODE_LABEL: self.node})
        except CRIError as exc:
            log.warning("kubelet.cri_list_failed", node=self.node, error=exc.message[:200])
            return
        self.states = {c.id: c.state for c in listed}
        for uid in self.sandboxes.dead(sandboxes):
            log.info("kubelet.sandbox_changed", pod_uid=uid, why="Pod sandbox changed, it will be killed and re-created.")
            self.stopping.submit(self._sandbox_died, uid)

    def usage(self, container_id: str, pod: dict, now: float) -> tuple[int, int] | None:
        """(core-nanoseconds, working-set bytes) by ListContainerStats: one call a node, at most once a REFRESH_S."""
        inst = self.instances.get(container_id)
        if inst is None or inst.id is None:
            return None
        if self.clock() - self.used_at >= REFRESH_S:
            self.used_at = self.clock()
            try:
                self.used = {s.attributes.id: (s.cpu.usage_core_nano_seconds.value, s.memory.working_set_bytes.value)
                             for s in self.client.stats(labels={NODE_LABEL: self.node})}
            except CRIError as exc:
                log.warning("kubelet.cri_stats_failed", node=self.node, error=exc.message[:200])
                self.used = {}
        return self.used.get(inst.id)

    def _sandbox_died(self, uid: str) -> None:
        """Its containers are killed with it; each the worker starts again gets a new sandbox (ensure)."""
        self.sandboxes.kill(uid)
        self.listed_at = -1e9

    def poll(self, container_id: str) -> Exited | None:
        inst = self.instances.get(container_id)
        if inst is None:
            return Exited(137, "the container is gone from the runtime", "Error")
        if inst.id is None:
            if inst.cancelled and not inst.busy:
                return Exited(137, "stopped before it started", "Error")
            if not inst.busy and not inst.cancelled and inst.retry_at is not None and self.clock() >= inst.retry_at:
                self._bring_up(container_id)
            return None
        self._list()
        state = self.states.get(inst.id)
        if state in (pb.CONTAINER_RUNNING, pb.CONTAINER_CREATED) or inst.busy:
            return None
        return self._exit_of(inst)

    def _exit_of(self, inst: Instance) -> Exited:
        try:
            status = self.client.container_status(inst.id)
        except CRIError as exc:
            return Exited(137 if exc.not_found else 255, "the container is gone from the runtime", "Error")
        if status.state in (pb.CONTAINER_RUNNING, pb.CONTAINER_CREATED):
            self.states[inst.id] = status.state
            return None
        return Exited(status.exit_code, status.message, status.reason if status.reason != "Unknown" else "Error")

    def starting(self, container_id: str) -> bool:
        """Until StartContainer returned: a container only created has no process nor cgroups yet."""
        inst = self.instances.get(container_id)
        return inst is not None and (inst.id is None or inst.busy)

    def waiting_reason(self, container_id: str) -> tuple[str, str] | None:
        inst = self.instances.get(container_id)
        return inst.waiting if inst is not None and inst.id is None else None

    def next_change(self, container_ids: list[str], after: float) -> float | None:
        return None

    def container_ref(self, container_id: str) -> str | None:
        inst = self.instances.get(container_id)
        return f"containerd://{inst.id}" if inst is not None and inst.id else None

    def not_ready(self) -> tuple[str, str] | None:
        """What keeps the node from Ready, in the kubelet's words: the runtime down, or its
        RuntimeReady / NetworkReady condition false (no CNI configuration before the node has a range)."""
        if self.down:
            return "KubeletNotReady", f"container runtime is down: {self.down}"
        try:
            conditions = self.client.status()
        except CRIError as exc:
            return "KubeletNotReady", f"container runtime is down: {exc.message}"
        for kind, words in (("RuntimeReady", "container runtime not ready"),
                            ("NetworkReady", "container runtime network not ready")):
            c = conditions.get(kind)
            if c is not None and not c.status:
                return "KubeletNotReady", f"{words}: {kind}=false reason:{c.reason} message:{c.message}"
        return None

    def network_ready(self, pod_cidr: str) -> None:
        """The node has its range: containerd's CNI configuration names it (containerd watches the file)."""
        if self.network is not None and self.network.ready(pod_cidr):
            log.info("kubelet.cni_configured", node=self.node, pod_cidr=pod_cidr)

    def pod_ip(self, pod_uid: str) -> str | None:
        return self.sandboxes.ip(pod_uid)

    # ---- stopping -------------------------------------------------------------------------------
    def stop(self, container_id: str, signal_name: str) -> None:
        inst = self.instances.get(container_id)
        if inst is None:
            return
        if inst.id is None:
            inst.cancelled = True
            return
        timeout = 0 if signal_name == "KILL" else TERM_TIMEOUT_S
        self.stopping.submit(self._stop, inst.id, timeout)

    def _stop(self, runtime_id: str, timeout: int) -> None:
        try:
            self.client.stop_container(runtime_id, timeout)
        except CRIError as exc:
            if not exc.not_found:
                log.warning("kubelet.cri_stop_failed", id=runtime_id[:12], error=exc.message[:200])
        self.listed_at = -1e9

    def exec_sync(self, container_id: str, command: list[str], timeout_s: int) -> int:
        inst = self.instances.get(container_id)
        if inst is None or inst.id is None:
            return 1
        try:
            return self.client.exec_sync(inst.id, command, timeout_s).exit_code
        except CRIError as exc:  # a probe's failure (timed out, container gone), not the kubelet's
            log.info("kubelet.cri_exec_failed", id=inst.id[:12], error=exc.message[:200])
            return 1

    # ---- pods -----------------------------------------------------------------------------------
    def adopt(self, pod_uid: str) -> dict[str, tuple[str, int]]:
        latest: dict[str, tuple[str, int]] = {}
        try:
            found = self.client.containers(labels={specs.POD_UID: pod_uid})
            self.sandboxes.adopt(pod_uid)
        except CRIError as exc:  # no runtime to ask: nothing to adopt, and the node says why it is not ready
            log.warning("kubelet.cri_adopt_failed", pod_uid=pod_uid, error=exc.message[:200])
            return latest
        for c in found:
            name, attempt = c.metadata.name, c.metadata.attempt
            if attempt >= latest.get(name, ("", -1))[1]:
                cid = f"{pod_uid}/{name}.{attempt}"
                self.instances[cid] = Instance(pod_uid, name, attempt, id=c.id)
                latest[name] = (cid, attempt)
        return latest

    def forget(self, pod_uid: str) -> None:
        for cid in [c for c, inst in self.instances.items() if inst.pod_uid == pod_uid]:
            self.instances[cid].cancelled = True
            del self.instances[cid]
        self.stopping.submit(self.sandboxes.remove, pod_uid)

    def close(self) -> None:  # a stop in flight waits for the grace period: the kubelet exits without it
        for pool in (self.bringing, self.stopping):
            pool.shutdown(wait=False, cancel_futures=True)
        self.client.close()  # every call in flight ends at once

    def known_pods(self) -> list[str]:
        return self.sandboxes.known()

    def log_path(self, pod_uid: str, container: str, instance: int) -> str | None:
        folder = self.sandboxes.log_directory(pod_uid)
        path = Path(folder, container, f"{instance}.log") if folder else None
        return str(path) if path is not None and path.exists() else None

    def workdir(self, pod_uid: str, container: dict) -> str | None:
        return None


def _image_env(env: dict[str, str]) -> dict[str, str]:
    """The kubelet's environment for a container without the host's PATH: the image's holds."""
    return {k: v for k, v in env.items() if k != "PATH"}


def _kind(pod: dict, container: dict) -> str:
    inits = {c["name"] for c in pod["spec"].get("initContainers") or []}
    return "init" if container["name"] in inits else "container"
