"""A pod's status as the kubelet reports it: phase, conditions, container statuses, QoS."""
from __future__ import annotations

from typing import NamedTuple

from actors.kubelet.containers import Container, rfc3339
from actors.kubelet.worker import PodWorker
from api.qos import qos_class


def _waiting(c: Container) -> dict:
    reason, message = c.waiting
    return {"waiting": {"reason": reason, **({"message": message} if message else {})}}


def container_status(worker: PodWorker, c: Container) -> dict:
    """running / terminated / waiting (ContainerCreating, CrashLoopBackOff, a start error)."""
    last = c.last_state
    if c.running:
        state = _waiting_to_start(worker, c) if worker.runtime.starting(c.cid) else \
            {"running": {"startedAt": rfc3339(c.started_at)}}
    elif c.terminated is not None and not _restarting(worker, c):
        state = {"terminated": c.terminated}
    else:
        state = _waiting(c)
        last = {"terminated": c.terminated} if c.terminated else last
    running = "running" in state
    ready = running and c.ready and not worker.refused  # an evicted pod's container, still being killed, is not
    status = {"name": c.name, "image": c.spec.get("image", ""), "imageID": "", "ready": ready,
              "started": running and c.started_ok, "restartCount": c.restarts, "state": state, "lastState": last}
    reference = container_ref(worker, c.cid) if c.cid else (c.terminated or {}).get("containerID")
    if reference:
        status["containerID"] = reference
    return status


def container_ref(worker: PodWorker, cid: str) -> str | None:
    """`<runtime>://<id>`: the runtime's own id once it has one."""
    ref = getattr(worker.runtime, "container_ref", None)
    return ref(cid) if ref else f"{worker.runtime.name}://{cid}"


def _waiting_to_start(worker: PodWorker, c: Container) -> dict:
    """Not running yet: the runtime's reason (an image pull's, a config error's), else the default."""
    reason = getattr(worker.runtime, "waiting_reason", lambda cid: None)(c.cid)
    if reason is None or reason[0] == "ContainerCreating" and not reason[1]:
        return {"waiting": {"reason": "PodInitializing" if c.init else "ContainerCreating"}}
    return {"waiting": {"reason": reason[0], **({"message": reason[1]} if reason[1] else {})}}


def _restarting(worker: PodWorker, c: Container) -> bool:
    if worker.terminating or worker.refused:
        return False
    return c.should_restart(worker.policy_of(c))


def phase(worker: PodWorker) -> str:
    if worker.failed_init or worker.refused:
        return "Failed"
    if worker.terminating and worker.stopped():
        return "Succeeded" if all(c.succeeded() for c in worker.apps if c.instances) else "Failed"
    apps = worker.apps
    if all(c.instances for c in apps) and not any(c.running for c in apps) and \
            not any(_restarting(worker, c) for c in apps):
        return "Succeeded" if all(c.succeeded() for c in apps) else "Failed"
    if any(_first_start(worker, c) for c in apps):
        return "Pending"  # the kubelet's getPhase: a container waiting to start for the first time
    if all(c.instances for c in apps) and any(c.running or _restarting(worker, c) for c in apps):
        return "Running"
    return "Pending"


def _first_start(worker: PodWorker, c: Container) -> bool:
    """Still being brought up (its image, its sandbox), with no earlier instance (ContainerCreating)."""
    return c.running and not c.last_state and worker.runtime.starting(c.cid)


def _condition(type_: str, ok: bool, previous: dict[str, dict], now: str, reason: str = "") -> dict:
    status = "True" if ok else "False"
    before = previous.get(type_)
    since = before["lastTransitionTime"] if before and before.get("status") == status else now
    cond = {"type": type_, "status": status, "lastProbeTime": None, "lastTransitionTime": since}
    if not ok and reason:
        cond["reason"] = reason
    return cond


class Memo(NamedTuple):
    """A status and what it was computed from (NodeAgent._status): the objects themselves, so `is` stays sound."""
    pod: dict
    written: dict | None
    inputs: tuple
    status: dict


def inputs(worker: PodWorker) -> tuple:
    """Everything `pod_status` reads of the worker and its containers besides the pod object and the
    clock (which only dates a change): equal inputs, equal status."""
    return (worker.pod_ip, worker.failed_init, worker.refused,
            tuple(_container_inputs(worker, c) for c in worker.inits + worker.apps))


def _container_inputs(worker: PodWorker, c: Container) -> tuple:
    waiting = getattr(worker.runtime, "waiting_reason", None)
    return (c.cid, c.running and worker.runtime.starting(c.cid), waiting(c.cid) if waiting and c.cid else None,
            c.started_at, c.instances, c.restarts, c.waiting,
            c.terminated, c.last_state, tuple(state.result for state in c.probes.values()))


def pod_status(worker: PodWorker, current: dict | None, written: dict | None = None) -> dict:
    """The status to write, keeping transition times of conditions that did not change. `written` is
    what this kubelet last wrote: its conditions are the previous ones even before the pod's event
    brings them back (kubelet's status manager keeps its own copy for the same reason)."""
    current = current or {}
    previous = {c.get("type"): c for c in current.get("conditions") or []}
    previous.update((c.get("type"), c) for c in (written or {}).get("conditions") or [])
    now = rfc3339(worker.clock())
    apps = [container_status(worker, c) for c in worker.apps]
    inits = [container_status(worker, c) for c in worker.inits]
    initialized = all(worker.init_done(c) for c in worker.inits)
    ready = all(s["ready"] for s in apps)
    pod_phase = phase(worker)
    conditions = [
        _condition("PodReadyToStartContainers", True, previous, now),
        _condition("Initialized", initialized, previous, now, "ContainersNotInitialized"),
        _condition("Ready", ready and pod_phase == "Running", previous, now, "ContainersNotReady"),
        _condition("ContainersReady", ready and pod_phase == "Running", previous, now, "ContainersNotReady"),
        previous.get("PodScheduled") or _condition("PodScheduled", True, previous, now),
    ]
    conditions += [c for t, c in previous.items() if t not in {x["type"] for x in conditions}]
    addresses = {"podIP": worker.pod_ip, "podIPs": [{"ip": worker.pod_ip}]} if worker.pod_ip else {}
    status = {**current, "phase": pod_phase, "conditions": conditions, "hostIP": worker.node_ip,
              "hostIPs": [{"ip": worker.node_ip}], **addresses,
              "startTime": current.get("startTime") or rfc3339(worker.admitted_at),
              "qosClass": qos_class(worker.pod), "containerStatuses": apps}
    if inits:
        status["initContainerStatuses"] = inits
    if worker.refused:
        status["reason"], status["message"] = worker.refused
    return status
