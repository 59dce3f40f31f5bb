"""A pod's effective resource requests (scheduler fit, `describe node`) and limits (a memory
emptyDir's size) as Kubernetes counts them: app containers and sidecars summed, init containers at
their peak, overhead added; cpu in millicores, everything else in units."""
from __future__ import annotations

from typing import Any

from api.quantity import milli, value


def quantity_of(name: str, qty: Any) -> int:
    return milli(qty) if name == "cpu" else value(qty)


def _requests(container: dict, defaults: dict[str, int] | None = None, field: str = "requests") -> dict[str, int]:
    reqs = {k: quantity_of(k, v) for k, v in ((container.get("resources") or {}).get(field) or {}).items()}
    for name, default in (defaults or {}).items():
        reqs.setdefault(name, default)
    return reqs


def _add(total: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        total[k] = total.get(k, 0) + v


def _max(total: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        total[k] = max(total.get(k, 0), v)


def pod_requests(spec: dict, defaults: dict[str, int] | None = None, field: str = "requests") -> dict[str, int]:
    """max(Σ app containers + Σ sidecars, max over init containers of (it + sidecars before it)) + overhead."""
    total: dict[str, int] = {}
    for c in spec.get("containers") or []:
        _add(total, _requests(c, defaults, field))
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in spec.get("initContainers") or []:
        reqs = _requests(c, defaults, field)
        if c.get("restartPolicy") == "Always":
            _add(sidecars, reqs)
            step = dict(sidecars)
        else:
            step = dict(sidecars)
            _add(step, reqs)
        _max(init_max, step)
    _add(total, sidecars)
    _max(total, init_max)
    _add(total, {k: quantity_of(k, v) for k, v in (spec.get("overhead") or {}).items()})
    return {k: v for k, v in total.items() if v}


def pod_memory_limit(spec: dict) -> int | None:
    """The pod's memory limit as its cgroup gets it (ResourceConfigForPod): PodLimits' memory when every
    container, init ones too, declares one; else None (unlimited)."""
    containers = (spec.get("containers") or []) + (spec.get("initContainers") or [])
    if not containers or not all(_requests(c, field="limits").get("memory") for c in containers):
        return None
    return pod_requests(spec, field="limits").get("memory")
