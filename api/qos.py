"""A pod's QoS class (ComputePodQOS): the apiserver sets it at creation (the pod strategy's
PrepareForCreate), the kubelet reports it and sizes the pod's cgroups by it. Only cpu and memory
count; a request missing from a container is taken from its limit, as the API's defaulting does."""
from __future__ import annotations

from api.quantity import milli, value

GUARANTEED, BURSTABLE, BESTEFFORT = "Guaranteed", "Burstable", "BestEffort"
QOS_RESOURCES = ("cpu", "memory")


def limits_of(container: dict) -> dict:
    return _mapping(_mapping(container.get("resources")).get("limits"))


def requests_of(container: dict) -> dict:
    """The container's requests, a missing one defaulted from its limit."""
    return {**limits_of(container), **_mapping(_mapping(container.get("resources")).get("requests"))}


def amount(name: str, quantity) -> int:
    """The quantity in milli-cpus or bytes; one that is no quantity counts as none (the store classes a
    pod before, and whether or not, anything validated it)."""
    try:
        return milli(quantity) if name == "cpu" else value(quantity)
    except (TypeError, ValueError, ArithmeticError):
        return 0


def all_containers(pod: dict) -> list[dict]:
    spec = _mapping(pod.get("spec"))
    return [c for field in ("containers", "initContainers") for c in _list(spec.get(field)) if isinstance(c, dict)]


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


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
