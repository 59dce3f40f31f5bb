"""ResourceQuota as kube-apiserver enforces it: what an object costs (the pod and object-count
evaluators), the admission check against every matching quota, and the controller's recount.
Quantities keep their Kubernetes format through the arithmetic, so messages and status print them
as `kubectl` shows them (`1500m`, `1Gi`, `1536870912`)."""
from __future__ import annotations

from decimal import Decimal
from typing import Iterable

from api.errors import admission_forbidden
from api.quantity import Amount, amount, parse_quantity
from api.registry import known, lookup

# ---- resource lists (k8s.io/apiserver/pkg/quota/v1 helpers) ----

def amounts(resources: dict | None) -> dict[str, Amount]:
    return {k: amount(v) for k, v in (resources or {}).items()}


def add(a: dict[str, Amount], b: dict[str, Amount]) -> dict[str, Amount]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out[k] + v if k in out else v
    return out


def _max_into(total: dict[str, Amount], more: dict[str, Amount]) -> None:
    for k, v in more.items():
        if k not in total or v.value > total[k].value:
            total[k] = v


def mask(resources: dict, names: Iterable[str]) -> dict:
    keep = set(names)
    return {k: v for k, v in resources.items() if k in keep}


def pretty(resources: dict[str, Amount]) -> str:
    return ",".join(f"{k}={resources[k]}" for k in sorted(resources))


def aggregate(spec: dict, field: str, overhead: bool = True) -> dict[str, Amount]:
    """PodRequests / PodLimits: app containers and sidecars summed, the max with each init container
    (plus the sidecars started before it), pod-level cpu/memory overriding, overhead added (to limits
    only where a limit exists)."""
    total: dict[str, Amount] = {}
    for c in spec.get("containers") or []:
        total = add(total, _own(c, field))
    sidecars: dict[str, Amount] = {}
    peak: dict[str, Amount] = {}
    for c in spec.get("initContainers") or []:
        own = _own(c, field)
        if c.get("restartPolicy") == "Always":
            total, sidecars = add(total, own), add(sidecars, own)
            _max_into(peak, sidecars)
        else:
            _max_into(peak, add(own, sidecars))
    _max_into(total, peak)
    total.update(mask(amounts(((spec.get("resources") or {}).get(field))), ("cpu", "memory")))
    if overhead:
        extra = amounts(spec.get("overhead"))
        total = add(total, extra if field == "requests" else mask(extra, total))
    return total


def _own(container: dict, field: str) -> dict[str, Amount]:
    return amounts((container.get("resources") or {}).get(field))


# ---- what an object costs ----

POD_RESOURCES = ("count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
                 "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods")
_MUST_SPECIFY = ("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")
_ONE = Amount(Decimal(1))
# The object counts quota knew before `count/<resource>`: the old name counts too.
LEGACY_COUNTS = {"ResourceQuota": "resourcequotas", "Service": "services", "Secret": "secrets",
                 "ConfigMap": "configmaps", "PersistentVolumeClaim": "persistentvolumeclaims",
                 "ReplicationController": "replicationcontrollers"}


def counts_toward_compute(pod: dict, now: float | None = None) -> bool:
    """QuotaV1Pod: a terminal pod, or one past its deletion grace, no longer costs compute or `pods`."""
    if ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
        return False
    meta = pod.get("metadata") or {}
    if now is not None and meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds") is not None:
        from api.times import seconds
        return now <= seconds(meta["deletionTimestamp"]) + meta["deletionGracePeriodSeconds"]
    return True


def _compute(requests: dict[str, Amount], limits: dict[str, Amount]) -> dict[str, Amount]:
    """podComputeUsageHelper: a request counts under its bare and `requests.` names, a limit under `limits.`."""
    usage = {"pods": _ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            usage[name] = usage[f"requests.{name}"] = requests[name]
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    for name, q in requests.items():
        if name.startswith("hugepages-"):
            usage[name] = usage[f"requests.{name}"] = q
    return usage


def pod_usage(pod: dict, now: float | None = None) -> dict[str, Amount]:
    """PodUsageFunc: `count/pods` always; `pods` and compute only while the pod is not terminal."""
    usage = {"count/pods": _ONE}
    if not counts_toward_compute(pod, now):
        return usage
    spec = pod.get("spec") or {}
    return add(usage, _compute(aggregate(spec, "requests"), aggregate(spec, "limits")))


def object_count_usage(kind: str) -> dict[str, Amount]:
    """The generic object-count evaluator: one `count/<resource>` (and the legacy name, if any)."""
    usage = {f"count/{lookup(kind).resource}": _ONE}
    if kind in LEGACY_COUNTS:
        usage[LEGACY_COUNTS[kind]] = _ONE
    return usage


def usage(kind: str, obj: dict, now: float | None = None) -> dict[str, Amount]:
    return pod_usage(obj, now) if kind == "Pod" else object_count_usage(kind)


def matching_resources(kind: str, names: Iterable[str]) -> list[str]:
    """The hard resources this kind's evaluator tracks."""
    if kind != "Pod":
        own = set(object_count_usage(kind))
        return sorted(n for n in names if n in own)
    return sorted(n for n in names if n in POD_RESOURCES or n.startswith(("hugepages-", "requests.hugepages-")))


# ---- scopes ----

def scope_selectors(quota: dict) -> list[dict]:
    """spec.scopes as `Exists` requirements, then spec.scopeSelector's expressions."""
    spec = quota.get("spec") or {}
    selectors = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    return selectors + list((spec.get("scopeSelector") or {}).get("matchExpressions") or [])


def pod_matches_scope(selector: dict, pod: dict) -> bool:
    spec, scope = pod.get("spec") or {}, selector.get("scopeName")
    if scope in ("Terminating", "NotTerminating"):
        terminating = (spec.get("activeDeadlineSeconds") is not None and spec["activeDeadlineSeconds"] >= 0)
        return terminating == (scope == "Terminating")
    if scope in ("BestEffort", "NotBestEffort"):
        return is_best_effort(pod) == (scope == "BestEffort")
    if scope == "PriorityClass":
        return _matches_value(selector, spec.get("priorityClassName") or "")
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(spec.get("affinity") or {})
    return False


def _matches_value(selector: dict, value: str) -> bool:
    op, values = selector.get("operator"), selector.get("values") or []
    return {"Exists": bool(value), "DoesNotExist": not value, "In": bool(value) and value in values,
            "NotIn": not value or value not in values}.get(op, False)


def _cross_namespace_affinity(affinity: dict) -> bool:
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind) or {}
        required = terms.get("requiredDuringSchedulingIgnoredDuringExecution") or []
        preferred = [w.get("podAffinityTerm") or {}
                     for w in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
        if any(t.get("namespaces") or t.get("namespaceSelector") is not None for t in required + preferred):
            return True
    return False


def is_best_effort(pod: dict) -> bool:
    """QoS BestEffort: no container asks for or caps cpu or memory (zero does not count)."""
    spec = pod.get("spec") or {}
    lists = [spec.get("resources") or {}] + [c.get("resources") or {} for c in
                                             (spec.get("containers") or []) + (spec.get("initContainers") or [])]
    return not any(parse_quantity(q) > 0 for res in lists for field in ("requests", "limits")
                   for name, q in (res.get(field) or {}).items() if name in ("cpu", "memory"))


def matches(quota: dict, obj: dict, kind: str) -> bool:
    """generic.Matches: the quota tracks one of the kind's resources and every scope holds."""
    hard = (quota.get("status") or {}).get("hard") or {}
    if not matching_resources(kind, hard):
        return False
    return all(kind == "Pod" and pod_matches_scope(s, obj) for s in scope_selectors(quota))


# ---- admission ----

def _missing(pod: dict, required: set[str]) -> str | None:
    """podEvaluator.Constraints: with cpu or memory quota'd, every container must state it."""
    spec = pod.get("spec") or {}
    if (spec.get("resources") or {}).get("requests") or (spec.get("resources") or {}).get("limits"):
        return None  # pod-level resources stand for the containers
    missing: dict[str, set[str]] = {}
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        stated = set(_compute(_own(c, "requests"), _own(c, "limits")))
        for name in required - stated:
            missing.setdefault(name, set()).add(c.get("name", ""))
    if not missing:
        return None
    return "must specify " + "; ".join(f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing))


def _admissible(quota: dict, obj: dict, kind: str) -> None:
    """Raise when the object breaks a constraint of the quota or the quota has not been counted yet."""
    status, name = quota.get("status") or {}, quota["metadata"]["name"]
    restricted = matching_resources(kind, status.get("hard") or {})
    if kind == "Pod":
        problem = _missing(obj, set(restricted) & set(_MUST_SPECIFY))
        if problem:
            raise admission_forbidden(kind, obj, f"failed quota: {name}: {problem}")
    used = status.get("used") or {}
    if any(r not in used for r in restricted):
        raise admission_forbidden(kind, obj, f"status unknown for quota: {name}, resources: {','.join(restricted)}")


def check(quotas: list[dict], obj: dict, kind: str, old: dict | None = None,
          now: float | None = None) -> list[tuple[dict, dict[str, str]]]:
    """CheckRequest: each matching quota (by name) with its `status.used` after this object is charged;
    Forbidden when one would go over `status.hard`. `old` is the object before an update: only the
    growth is charged."""
    interesting = []
    for quota in sorted(quotas, key=lambda q: q["metadata"]["name"]):
        if matches(quota, obj, kind):
            _admissible(quota, obj, kind)
            interesting.append(quota)
    if not interesting:
        return []
    delta = _delta(kind, obj, old, now)
    if not delta:
        return []
    return [(q, _charge(q, delta, kind, obj)) for q in interesting]


def _delta(kind: str, obj: dict, old: dict | None, now: float | None) -> dict[str, Amount]:
    delta = usage(kind, obj, now)
    negative = sorted(k for k, v in delta.items() if v.value < 0)
    if negative:
        raise admission_forbidden(kind, obj, f"quota usage is negative for resource(s): {','.join(negative)}")
    if old is not None:  # SubtractWithNonNegativeResult, then RemoveZeros
        before = usage(kind, old, now)
        delta = {k: v - before[k] if k in before else v for k, v in delta.items()}
    return {k: v for k, v in delta.items() if v.value > 0}


def _charge(quota: dict, delta: dict[str, Amount], kind: str, obj: dict) -> dict[str, str]:
    status = quota.get("status") or {}
    hard, used = amounts(status.get("hard")), amounts(status.get("used"))
    requested = mask(delta, hard)
    new_used = add(used, requested)
    exceeded = sorted(k for k in requested if new_used[k].value > hard[k].value)
    if exceeded:
        raise admission_forbidden(kind, obj, (
            f"exceeded quota: {quota['metadata']['name']}, requested: {pretty(mask(requested, exceeded))}, "
            f"used: {pretty(mask(used, exceeded))}, limited: {pretty(mask(hard, exceeded))}"))
    return {k: str(v) for k, v in new_used.items()}


# ---- the controller's recount ----

def kinds_counted(quota: dict) -> set[str]:
    """The kinds whose live objects `recompute` needs for this quota's hard resources."""
    kinds = set()
    for name in (quota.get("spec") or {}).get("hard") or {}:
        if matching_resources("Pod", [name]):
            kinds.add("Pod")
        elif name.startswith("count/") and known(name[6:]):
            kinds.add(lookup(name[6:]).kind)
        else:
            kinds.update(k for k, legacy in LEGACY_COUNTS.items() if legacy == name and known(k))
    return kinds


def recompute(quota: dict, objects_by_kind: dict[str, list[dict]], now: float | None = None) -> dict:
    """The quota's new status: `hard` from spec, `used` counted from the namespace's live objects of
    each kind given (resources of kinds not given keep their last count), masked to `hard`."""
    hard = amounts((quota.get("spec") or {}).get("hard"))
    used = amounts((quota.get("status") or {}).get("used"))
    for kind, objects in objects_by_kind.items():
        tracked = matching_resources(kind, hard)
        if tracked:
            used.update(_count(quota, kind, objects, tracked, now))
    return {"hard": {k: str(v) for k, v in hard.items()},
            "used": {k: str(v) for k, v in mask(used, hard).items()}}


def _count(quota: dict, kind: str, objects: list[dict], tracked: list[str],
           now: float | None) -> dict[str, Amount]:
    total = {name: Amount(Decimal(0)) for name in tracked}
    selectors = scope_selectors(quota)
    for obj in objects:
        if all(kind == "Pod" and pod_matches_scope(s, obj) for s in selectors):
            total = add(total, mask(usage(kind, obj, now), tracked))
    return total
