"""Priority: a new pod's priority comes from its PriorityClass (or the global default); writes of
PriorityClasses keep one global default and the `system-` names to the system."""
from __future__ import annotations

from api import priority


class Priority:
    name = "Priority"

    def _classes(self, a) -> list[dict]:
        return [*priority.BUILTIN_CLASSES, *a.cache.list("PriorityClass")]

    def mutate(self, a) -> None:
        if a.pod_create:  # a replace that leaves priority out keeps it: the store carries it over
            a.obj = priority.admit_pod(a.obj, self._classes(a))

    def validate(self, a) -> None:
        if a.kind == "PriorityClass" and a.operation in ("CREATE", "UPDATE"):
            priority.validate_class_write(a.obj, a.cache.list("PriorityClass"))
