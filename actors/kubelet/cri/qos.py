"""A pod's resources as the kubelet hands them to the runtime (k8s-containers.md §4.8): its QoS class,
its cgroup parent (cgroupfs driver), each container's CPU shares, CFS quota, memory limit and OOM score
adjustment, and the pod cgroup's values.

Only cpu and memory count. Requests missing from a container are taken from its limits, as the API's
defaulting does (and the kubelet repeats for objects made before it did).
"""
from __future__ import annotations

from api.qos import BESTEFFORT, BURSTABLE, GUARANTEED, qos_class  # noqa: F401 (the kubelet's names)
from api.qos import QOS_RESOURCES as _QOS_RESOURCES, all_containers as _all_containers, amount as _amount
from api.qos import limits_of as _limits, requests_of as _requests
from api.quantity import milli, value

MIN_SHARES, MAX_SHARES, SHARES_PER_CPU = 2, 262144, 1024
QUOTA_PERIOD, MIN_QUOTA = 100_000, 1000  # µs
GUARANTEED_OOM, BESTEFFORT_OOM = -997, 1000
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000


def _is_sidecar(container: dict) -> bool:
    return container.get("restartPolicy") == "Always"


def pod_cgroup_parent(pod: dict) -> str:
    """The pod's cgroup under the cgroupfs driver: /kubepods[/burstable|/besteffort]/pod<uid>."""
    uid = (pod.get("metadata") or {}).get("uid", "")
    qos = qos_class(pod)
    tier = "" if qos == GUARANTEED else f"/{qos.lower()}"
    return f"/kubepods{tier}/pod{uid}"


def milli_cpu_to_shares(milli_cpu: int) -> int:
    """cm.MilliCPUToShares."""
    if milli_cpu == 0:
        return MIN_SHARES
    return max(MIN_SHARES, min(MAX_SHARES, milli_cpu * SHARES_PER_CPU // 1000))


def milli_cpu_to_quota(milli_cpu: int, period: int = QUOTA_PERIOD) -> int:
    """milliCPUToQuota: 0 (no limit) or the limit's share of the period, 1 ms at least."""
    if milli_cpu == 0:
        return 0
    return max(MIN_QUOTA, milli_cpu * period // 1000)


def _is_node_critical(pod: dict) -> bool:
    spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
    critical = (spec.get("priority") or 0) >= SYSTEM_CRITICAL_PRIORITY \
        or "kubernetes.io/config.mirror" in (meta.get("annotations") or {})
    return critical and spec.get("priorityClassName") == "system-node-critical"


def _memory_request(container: dict) -> int:
    return value(_requests(container).get("memory", 0))


def oom_score_adj(pod: dict, container: dict, memory_capacity: int) -> int:
    """qos.GetContainerOOMScoreAdjust: -997 Guaranteed (or node-critical), 1000 BestEffort, Burstable
    1000 - 1000*request/capacity clamped to 3..999; a sidecar no higher than the smallest regular one."""
    if _is_node_critical(pod):
        return GUARANTEED_OOM
    qos = qos_class(pod)
    if qos == GUARANTEED:
        return GUARANTEED_OOM
    if qos == BESTEFFORT:
        return BESTEFFORT_OOM
    capacity = max(memory_capacity, 1)
    score = 1000 - (1000 * _memory_request(container)) // capacity
    regular = (pod.get("spec") or {}).get("containers") or []
    if _is_sidecar(container) and regular:
        smallest = min(_memory_request(c) for c in regular)
        score = min(score, 1000 - (1000 * smallest) // capacity)
    if score < 1000 + GUARANTEED_OOM:
        return 1000 + GUARANTEED_OOM
    return BESTEFFORT_OOM - 1 if score == BESTEFFORT_OOM else score


def _linux_resources(cpu_request: int, cpu_limit: int, memory_limit: int) -> dict:
    """calculateLinuxResources (CFS quota on): shares from the request (or the limit when no request),
    quota from the limit, the period always, the memory limit when there is one."""
    shares = milli_cpu_to_shares(cpu_limit if cpu_request == 0 and cpu_limit else cpu_request)
    resources = {"cpu_shares": shares, "cpu_period": QUOTA_PERIOD, "cpu_quota": milli_cpu_to_quota(cpu_limit)}
    if memory_limit:
        resources["memory_limit_in_bytes"] = memory_limit
    return resources


def container_resources(pod: dict, container: dict, memory_capacity: int) -> dict:
    """A container's LinuxContainerResources."""
    requests, limits = _requests(container), _limits(container)
    resources = _linux_resources(milli(requests.get("cpu", 0)), milli(limits.get("cpu", 0)),
                                 value(limits.get("memory", 0)))
    resources["oom_score_adj"] = oom_score_adj(pod, container, memory_capacity)
    return resources


def _pod_totals(pod: dict, pick) -> tuple[dict[str, int], dict[str, bool]]:
    """resource.PodRequests / PodLimits over cpu and memory: regular containers and sidecars add up,
    each init container (plus the sidecars started before it) counts by its maximum; and whether
    every container, as that walk sees it, declared each resource."""
    spec = pod.get("spec") or {}
    total = {name: 0 for name in _QOS_RESOURCES}
    declared = {name: True for name in _QOS_RESOURCES}

    def amounts(container: dict) -> dict[str, int]:
        given = pick(container)
        return {name: _amount(name, given[name]) if name in given else 0 for name in _QOS_RESOURCES}

    def note(values: dict[str, int]) -> None:
        for name in _QOS_RESOURCES:
            declared[name] = declared[name] and values[name] != 0

    for container in spec.get("containers") or []:
        note(values := amounts(container))
        total = {n: total[n] + values[n] for n in _QOS_RESOURCES}
    sidecars = {name: 0 for name in _QOS_RESOURCES}
    inits = {name: 0 for name in _QOS_RESOURCES}
    for container in spec.get("initContainers") or []:
        values = amounts(container)
        if _is_sidecar(container):
            total = {n: total[n] + values[n] for n in _QOS_RESOURCES}
            sidecars = {n: sidecars[n] + values[n] for n in _QOS_RESOURCES}
            values = dict(sidecars)
        else:
            values = {n: values[n] + sidecars[n] for n in _QOS_RESOURCES}
        note(values)
        inits = {n: max(inits[n], values[n]) for n in _QOS_RESOURCES}
    return {n: max(total[n], inits[n]) for n in _QOS_RESOURCES}, declared


def sandbox_resources(pod: dict) -> dict:
    """The pod cgroup's values (cm.ResourceConfigForPod) as LinuxContainerResources: Guaranteed gets
    shares, quota and memory; Burstable shares, plus quota if every container limits cpu and memory
    if every one limits memory; BestEffort the minimum shares."""
    qos = qos_class(pod)
    if qos == BESTEFFORT:
        return {"cpu_shares": MIN_SHARES}
    requests, _ = _pod_totals(pod, _requests)
    limits, declared = _pod_totals(pod, _limits)
    resources = {"cpu_shares": milli_cpu_to_shares(requests["cpu"])}
    if qos == GUARANTEED or declared["cpu"]:
        resources.update(cpu_quota=milli_cpu_to_quota(limits["cpu"]), cpu_period=QUOTA_PERIOD)
    if (qos == GUARANTEED or declared["memory"]) and limits["memory"]:
        resources["memory_limit_in_bytes"] = limits["memory"]
    return resources
