"""The LimitRanger admission plugin: a namespace's LimitRanges default a pod's container resources
(recording what they set in the `kubernetes.io/limit-ranger` annotation) and bound them (min, max,
limit/request ratio per Container and per Pod, storage requests per PersistentVolumeClaim)."""
from __future__ import annotations

import copy

from api.defaults import limit_range_item
from api.errors import admission_forbidden
from api.quantity import Amount, amount
from api.quota import aggregate, amounts

ANNOTATION = "kubernetes.io/limit-ranger"
_MAX_MILLI = 2**63 // 1000  # beyond it Kubernetes compares whole units, not thousandths


def _items(limit_ranges: list[dict], kind: str) -> list[dict]:
    return [limit_range_item(i) for lr in limit_ranges for i in (lr.get("spec") or {}).get("limits") or []
            if i.get("type") == kind]


def default(pod: dict, limit_ranges: list[dict]) -> dict:
    """The pod with each LimitRange's container defaults filled in (containers, then init containers),
    annotated with what was set; the input is not changed."""
    pod = copy.deepcopy(pod)
    for lr in limit_ranges:  # each LimitRange in turn, like the plugin's MutateLimit loop
        _default_one(pod, _items([lr], "Container"))
    return pod


def _default_one(pod: dict, items: list[dict]) -> None:
    limits, requests = {}, {}
    for item in items:
        requests.update(item.get("defaultRequest") or {})
        limits.update(item.get("default") or {})
    notes: list[str] = []
    spec = pod.get("spec") or {}
    for where, containers in (("container", spec.get("containers")), ("init container", spec.get("initContainers"))):
        for c in containers or []:
            notes += _merge(c, limits, requests, where)
    if notes:
        annotations = pod.setdefault("metadata", {}).get("annotations") or {}
        pod["metadata"]["annotations"] = {**annotations, ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}


def _merge(container: dict, limits: dict, requests: dict, where: str) -> list[str]:
    res = container.setdefault("resources", {})
    have_limits, have_requests = res.setdefault("limits", {}), res.setdefault("requests", {})
    set_limits = sorted(k for k in limits if k not in have_limits)
    set_requests = sorted(k for k in requests if k not in have_requests)
    have_limits.update({k: limits[k] for k in set_limits})
    have_requests.update({k: requests[k] for k in set_requests})
    for field in ("limits", "requests"):  # an empty list is omitted from the JSON, as Kubernetes writes it
        if not res[field]:
            del res[field]
    notes = []
    if set_requests:
        notes.append(f"{', '.join(set_requests)} request for {where} {container.get('name', '')}")
    if set_limits:
        notes.append(f"{', '.join(set_limits)} limit for {where} {container.get('name', '')}")
    return notes


def validate(pod: dict, limit_ranges: list[dict]) -> None:
    """Forbidden with the first LimitRange's violations (one message, or `[a, b]` for several)."""
    for lr in limit_ranges:
        errors = pod_errors(pod, lr)
        if errors:
            raise admission_forbidden("Pod", pod, aggregate_message(errors))


def aggregate_message(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def pod_errors(pod: dict, limit_range: dict) -> list[str]:
    """PodValidateLimitFunc for one LimitRange, in its item order."""
    spec, errors = pod.get("spec") or {}, []
    for item in [limit_range_item(i) for i in (limit_range.get("spec") or {}).get("limits") or []]:
        kind = item.get("type")
        if kind == "Container":
            for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                res = c.get("resources") or {}
                errors += _bounds(item, kind, amounts(res.get("requests")), amounts(res.get("limits")))
        elif kind == "Pod":
            requests = aggregate(spec, "requests", overhead=False)
            errors += _bounds(item, kind, requests, aggregate(spec, "limits", overhead=False))
    return errors


def _bounds(item: dict, kind: str, requests: dict, limits: dict) -> list[str]:
    """Min, max and limit/request ratio of one item, resources in name order."""
    errors = []
    for field, check in (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio)):
        errors += [check(kind, k, amount(v), requests, limits) for k, v in sorted((item.get(field) or {}).items())]
    return [e for e in errors if e]


def _comparable(*qs: Amount | None) -> list[int]:
    """requestLimitEnforcedValues: thousandths when every value allows it, whole units otherwise."""
    units = [0 if q is None else _ceil(q.value) for q in qs]
    if all(u <= _MAX_MILLI for u in units):
        return [0 if q is None else _ceil(q.value * 1000) for q in qs]
    return units


def _ceil(value) -> int:
    return int(-((-value) // 1))


def _min(kind: str, name: str, bound: Amount, requests: dict, limits: dict) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, l, b = _comparable(req, lim, bound)
    if req is None:
        return f"minimum {name} usage per {kind} is {bound}.  No request is specified"
    if r < b:
        return f"minimum {name} usage per {kind} is {bound}, but request is {req}"
    if lim is not None and l < b:
        return f"minimum {name} usage per {kind} is {bound}, but limit is {lim}"
    return None


def _max(kind: str, name: str, bound: Amount, requests: dict, limits: dict) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, l, b = _comparable(req, lim, bound)
    if lim is None:
        return f"maximum {name} usage per {kind} is {bound}.  No limit is specified"
    if l > b:
        return f"maximum {name} usage per {kind} is {bound}, but limit is {lim}"
    if req is not None and r > b:
        return f"maximum {name} usage per {kind} is {bound}, but request is {req}"
    return None


def _ratio(kind: str, name: str, bound: Amount, requests: dict, limits: dict) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, l, _ = _comparable(req, lim, bound)
    head = f"{name} max limit to request ratio per {kind} is {bound}"
    if req is None or r == 0:
        return f"{head}, but no request is specified or request is 0"
    if lim is None or l == 0:
        return f"{head}, but no limit is specified or limit is 0"
    ratio, whole = l / r, _ceil(bound.value)
    observed, allowed = (ratio * 1000, _ceil(bound.value * 1000)) if whole <= _MAX_MILLI else (ratio, whole)
    return f"{head}, but provided ratio is {ratio:f}" if observed > allowed else None


# ---- the plugin in the apiserver's chain ----------------------------------------------------------

class LimitRanger:
    name = "LimitRanger"

    def mutate(self, a) -> None:
        ranges = a.cache.list("LimitRange", a.namespace) if a.pod_create else None
        if ranges:
            a.obj = default(a.obj, ranges)

    def validate(self, a) -> None:
        ranges = a.cache.list("LimitRange", a.namespace) if a.pod_create else None
        if ranges:
            validate(a.obj, ranges)
