"""The Priority admission plugin: a pod's priority comes from its PriorityClass (or the global default),
never from the pod; PriorityClass writes keep one global default and the reserved system classes."""
from __future__ import annotations

from api.errors import admission_forbidden, forbidden
from api.pod import own_spec
from api.policy import BUILTIN_CLASSES, DEFAULT_PREEMPTION, NO_DEFAULT_PRIORITY

def default_class(classes: list[dict]) -> dict | None:
    """The globalDefault class; should a race have made two, the lowest value wins."""
    defaults = [pc for pc in classes if pc.get("globalDefault")]
    return min(defaults, key=lambda pc: pc.get("value", 0)) if defaults else None


def _resolve(pod: dict, classes: list[dict]) -> tuple[str, int, str]:
    name = (pod.get("spec") or {}).get("priorityClassName") or ""
    if not name:
        pc = default_class(classes)
        if pc is None:
            return "", NO_DEFAULT_PRIORITY, DEFAULT_PREEMPTION
    else:
        pc = next((c for c in classes if c["metadata"]["name"] == name), None)
        if pc is None:
            raise admission_forbidden("Pod", pod, f"no PriorityClass with name {name} was found")
    return pc["metadata"]["name"], pc.get("value", 0), pc.get("preemptionPolicy") or DEFAULT_PREEMPTION


def admit_pod(pod: dict, priority_classes: list[dict]) -> dict:
    """A created pod with priorityClassName, priority and preemptionPolicy resolved from its class;
    Forbidden when the class is missing or the pod states a different priority or policy."""
    name, value, policy = _resolve(pod, priority_classes)
    spec = pod.get("spec") or {}
    if spec.get("priority") is not None and spec["priority"] != value:
        raise admission_forbidden("Pod", pod, (
            f"the integer value of priority ({spec['priority']}) must not be provided in pod spec; "
            f"priority admission controller computed {value} from the given PriorityClass name"))
    if spec.get("preemptionPolicy") is not None and spec["preemptionPolicy"] != policy:
        raise admission_forbidden("Pod", pod, (
            f"the string value of PreemptionPolicy ({spec['preemptionPolicy']}) must not be provided in pod "
            f"spec; priority admission controller computed {policy} from the given PriorityClass name"))
    pod = own_spec(pod)
    pod["spec"].update(priorityClassName=name, priority=value, preemptionPolicy=policy)
    if not name:
        del pod["spec"]["priorityClassName"]
    return pod


def admit_pod_update(pod: dict, old: dict) -> dict:
    """An update keeps the priority and policy admission set when the new object leaves them out."""
    pod = own_spec(pod)
    for field in ("priority", "preemptionPolicy"):
        if pod["spec"].get(field) is None and (old.get("spec") or {}).get(field) is not None:
            pod["spec"][field] = old["spec"][field]
    return pod


def validate_class_write(pc: dict, existing_classes: list[dict], update: bool = False) -> None:
    """Forbidden when a class would become a second globalDefault (the message names the current one)."""
    if not pc.get("globalDefault"):
        return
    current = default_class(existing_classes)
    if current is not None and (not update or current["metadata"]["name"] != pc["metadata"]["name"]):
        raise admission_forbidden("PriorityClass", pc, f"PriorityClass {current['metadata']['name']} is already "
                                                      f"marked as default. Only one default can exist")


def validate_class_delete(name: str) -> None:
    """The registry refuses to delete the built-in system classes."""
    if any(b["metadata"]["name"] == name for b in BUILTIN_CLASSES):
        raise forbidden("PriorityClass", name, "this is a system priority class and cannot be deleted")


# ---- the plugin in the apiserver's chain ----------------------------------------------------------

class Priority:
    name = "Priority"

    def _classes(self, a) -> list[dict]:
        return [*BUILTIN_CLASSES, *a.cache.list("PriorityClass")]

    def mutate(self, a) -> None:
        if a.pod_create:  # a replace that leaves priority out keeps it: the store carries it over
            a.obj = admit_pod(a.obj, self._classes(a))

    def validate(self, a) -> None:
        if a.kind == "PriorityClass" and a.operation in ("CREATE", "UPDATE"):
            validate_class_write(a.obj, a.cache.list("PriorityClass"))
