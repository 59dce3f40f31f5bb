"""The resourcequota controller: each ResourceQuota's `status.hard` is its `spec.hard` and `status.used`
what the namespace's live objects take of it, so the ResourceQuota admission plugin (which reads
`status`) refuses what would go over. It caches every namespaced kind it can count except Events
(many, short-lived, and rarely under quota), and recomputes a namespace's quotas whenever one of them
changes there.

The usage functions below follow Kubernetes' pod evaluator (`pkg/quota/v1/evaluator/core/pods.go`)
and object-count evaluator; `recompute` is the one the lead may swap for `api.quota.recompute`.
"""
from __future__ import annotations

import time
from decimal import ROUND_CEILING, Decimal
from typing import Callable

from actors.controllers.base import Controller
from api.registry import KINDS
from api.resources import pod_requests
from api.status import StatusError
from api.times import seconds
from runtime.cache import Delta

COUNTED = tuple(info for info in KINDS.values() if info.namespaced and info.kind != "Event")
COMPUTE = ("cpu", "memory", "ephemeral-storage")  # charged as `<name>` and `requests.<name>` alike
BINARY_HINTS = ("memory", "storage", "hugepages")  # quantities people write in Ki/Mi/Gi


# ---- a pod's usage ---------------------------------------------------------------------------------
def is_terminal(pod: dict, now: float) -> bool:
    """Not charged: finished, or stuck terminating past its grace period (a lost node must not hold
    the namespace's quota)."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return True
    meta = pod["metadata"]
    grace = meta.get("deletionGracePeriodSeconds")
    return bool(meta.get("deletionTimestamp")) and grace is not None \
        and now > seconds(meta["deletionTimestamp"]) + grace


def _limits_spec(spec: dict) -> dict:
    """The spec with each container's limits in the place of its requests (summed the same way)."""
    def swap(c: dict) -> dict:
        return {**c, "resources": {"requests": (c.get("resources") or {}).get("limits") or {}}}
    return {**spec, "containers": [swap(c) for c in spec.get("containers") or []],
            "initContainers": [swap(c) for c in spec.get("initContainers") or []], "overhead": spec.get("overhead")}


def _as_decimal(name: str, amount: int) -> Decimal:
    return Decimal(amount) / 1000 if name == "cpu" else Decimal(amount)  # pod_requests gives cpu in millicores


def _extended(name: str) -> bool:
    prefix = name.split("/", 1)[0]
    return "/" in name and not (prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io"))


def pod_usage(pod: dict) -> dict[str, Decimal]:
    """What a live pod charges: `pods`, requests and limits of its compute resources (sidecars,
    init containers at their peak and overhead counted as the scheduler counts them)."""
    spec = pod.get("spec") or {}
    usage: dict[str, Decimal] = {"pods": Decimal(1)}
    for name, amount in pod_requests(spec).items():
        value = _as_decimal(name, amount)
        if name in COMPUTE or name.startswith("hugepages-"):
            usage[name] = value
            usage[f"requests.{name}"] = value
        elif _extended(name):
            usage[f"requests.{name}"] = value
    for name, amount in pod_requests(_limits_spec(spec)).items():
        if name in COMPUTE:
            usage[f"limits.{name}"] = _as_decimal(name, amount)
    return usage


# ---- scopes ------------------------------------------------------------------------------------------
def _best_effort(pod: dict) -> bool:
    spec = pod.get("spec") or {}
    for c in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        res = c.get("resources") or {}
        if any(k in ("cpu", "memory") for part in ("requests", "limits") for k in (res.get(part) or {})):
            return False
    return True


def _terminating(pod: dict) -> bool:
    deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return deadline is not None and deadline >= 0


SCOPES: dict[str, Callable[[dict], bool]] = {
    "Terminating": _terminating, "NotTerminating": lambda p: not _terminating(p),
    "BestEffort": _best_effort, "NotBestEffort": lambda p: not _best_effort(p),
}


def _holds(scope: str, op: str, values: list[str], pod: dict) -> bool:
    if scope == "PriorityClass":
        name = (pod.get("spec") or {}).get("priorityClassName") or ""
        return {"In": name in values, "NotIn": name not in values, "Exists": bool(name),
                "DoesNotExist": not name}.get(op, False)
    test = SCOPES.get(scope)  # CrossNamespacePodAffinity is not tracked: it matches nothing here
    return test is not None and test(pod) == (op == "Exists")


def in_scope(quota: dict, pod: dict) -> bool:
    """Every scope of the quota (`scopes` and `scopeSelector`) holds for the pod."""
    spec = quota.get("spec") or {}
    terms = [(s, "Exists", []) for s in spec.get("scopes") or []]
    terms += [(e.get("scopeName", ""), e.get("operator", ""), e.get("values") or [])
              for e in (spec.get("scopeSelector") or {}).get("matchExpressions") or []]
    return all(_holds(scope, op, values, pod) for scope, op, values in terms)


# ---- a quota's status ------------------------------------------------------------------------------
def _count_of(resource: str, objects_by_kind: dict[str, list[dict]]) -> int | None:
    """`count/<resource>[.<group>]` (and the legacy `resourcequotas`): objects in storage."""
    name = resource.removeprefix("count/")
    info = next((i for i in COUNTED if i.resource == name), None)
    return None if info is None else len(objects_by_kind.get(info.kind, []))


def _pod_key(resource: str) -> bool:
    return resource in ("pods", *COMPUTE) or resource.startswith(("requests.", "limits.", "hugepages-"))


def recompute(quota: dict, objects_by_kind: dict[str, list[dict]], now: float | None = None) -> dict:
    """`{hard, used}` for the quota from the namespace's objects by kind; `used` names exactly the
    resources of `hard` that kubus can measure (zero when nothing uses them)."""
    now = time.time() if now is None else now
    hard = {k: str(v) for k, v in ((quota.get("spec") or {}).get("hard") or {}).items()}
    pods = [p for p in objects_by_kind.get("Pod", []) if in_scope(quota, p)]
    charged: dict[str, Decimal] = {}
    for pod in pods:
        if not is_terminal(pod, now):
            for name, value in pod_usage(pod).items():
                charged[name] = charged.get(name, Decimal(0)) + value
    used: dict[str, str] = {}
    for resource in hard:
        if resource == "count/pods":
            used[resource] = canonical(resource, Decimal(len(pods)))
        elif resource.startswith("count/") or resource == "resourcequotas":
            count = _count_of("count/resourcequotas" if resource == "resourcequotas" else resource, objects_by_kind)
            if count is not None:
                used[resource] = canonical(resource, Decimal(count))
        elif _pod_key(resource):
            used[resource] = canonical(resource, charged.get(resource, Decimal(0)))
    return {"hard": hard, "used": used}


_DECIMAL = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY = {0: "", 10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}


def canonical(resource: str, value: Decimal) -> str:
    """A quantity as Kubernetes prints a sum: `1500m`, `2`, `128Mi`, `1G`; binary suffixes only for
    memory-like resources, and only when shorter."""
    if value == 0:
        return "0"
    text = _decimal_si(value)
    if any(h in resource for h in BINARY_HINTS) and value == value.to_integral_value() and int(value) % 1024 == 0:
        binary = _binary_si(int(value))
        return binary if len(binary) <= len(text) else text
    return text


def _decimal_si(value: Decimal) -> str:
    exp = next((e for e in (-9, -6, -3, 0) if (value / Decimal(10) ** e) % 1 == 0), -9)
    mantissa = int((value / Decimal(10) ** exp).to_integral_value(ROUND_CEILING))
    while exp < 18 and mantissa % 1000 == 0:
        mantissa, exp = mantissa // 1000, exp + 3
    return f"{mantissa}{_DECIMAL[exp]}"


def _binary_si(value: int) -> str:
    exp = 0
    while exp < 60 and value % 1024 == 0:
        value, exp = value // 1024, exp + 10
    return f"{value}{_BINARY[exp]}"


# ---- the controller ----------------------------------------------------------------------------------
class ResourceQuotaController(Controller):
    name = "controller.resourcequota"
    kinds = tuple(info.kind.lower() for info in COUNTED)

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        """A quota's own change concerns it; any other object's, every quota of its namespace."""
        meta = delta.object["metadata"]
        ns = meta.get("namespace") or ""
        if delta.kind == "ResourceQuota":
            return [f"{ns}/{meta['name']}"]
        return [f"{ns}/{q['metadata']['name']}" for q in self.in_namespace("ResourceQuota", ns)]

    def reconcile(self, key: str) -> None:
        ns, name = key.split("/", 1)
        quota = self.get("ResourceQuota", ns, name)
        if quota is None or quota["metadata"].get("deletionTimestamp"):
            return
        status = recompute(quota, {info.kind: self.in_namespace(info.kind, ns) for info in COUNTED})
        self._recheck_when_grace_ends(key, ns)
        if status == (quota.get("status") or {}):
            return
        self.log.info("resourcequota.status", quota=key, used=status["used"], rv=quota["metadata"]["resourceVersion"])
        self.write({"verb": "updateStatus", "kind": "ResourceQuota", "namespace": ns, "name": name,
                    "resourceVersion": quota["metadata"]["resourceVersion"], "object": {**quota, "status": status}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) else None)

    def _recheck_when_grace_ends(self, key: str, ns: str) -> None:
        """A pod stuck terminating stops being charged when its grace runs out: look again then."""
        now = time.time()
        ends = [seconds(p["metadata"]["deletionTimestamp"]) + p["metadata"]["deletionGracePeriodSeconds"] - now
                for p in self.in_namespace("Pod", ns)
                if p["metadata"].get("deletionTimestamp") and p["metadata"].get("deletionGracePeriodSeconds") is not None
                and not is_terminal(p, now)]
        if ends:
            self.queue.add_after(key, max(min(ends), 0) + 0.1)
