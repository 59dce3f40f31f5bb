"""A pod's QoS class (ComputePodQOS): the apiserver sets it at creation (the pod strategy's
PrepareForCreate), the kubelet reports it and sizes the pod's cgroups by it. Only cpu and memory
count; a request missing from a container is taken from its limit, as the API's defaulting does."""
from __future__ import annotations

from api.quantity import milli, value

GUARANTEED, BURSTABLE, BESTEFFORT = "Guaranteed", "Burstable", "BestEffort"
QOS_RESOURCES = ("cpu", "memory")


def limits_of(container: dict) -> dict:
    return (container.get("resources") or {}).get("limits") or {}


def requests_of(container: dict) -> dict:
    """The container's requests, a missing one defaulted from its limit."""
    return {**limits_of(container), **((container.get("resources") or {}).get("requests") or {})}


def amount(name: str, quantity) -> int:
    return milli(quantity) if name == "cpu" else value(quantity)


def all_containers(pod: dict) -> list[dict]:
    spec = pod.get("spec") or {}
    return list(spec.get("containers") or []) + list(spec.get("initContainers") or [])


def qos_class(pod: dict) -> str:
    """ComputePodQOS: BestEffort with no cpu/memory requests or limits; Guaranteed when every container
    limits both and the summed requests equal the summed limits; else Burstable."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    for container in all_containers(pod):
        for total, given in ((requests, requests_of(container)), (limits, limits_of(container))):
            for name in QOS_RESOURCES:
                if name in given and amount(name, given[name]) > 0:
                    total[name] = total.get(name, 0) + amount(name, given[name])
        if not all(name in limits_of(container) and amount(name, limits_of(container)[name]) > 0
                   for name in QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return BESTEFFORT
    if guaranteed and all(limits.get(name) == amount for name, amount in requests.items()) \
            and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE
