"""DefaultTolerationSeconds: a pod tolerates not-ready and unreachable nodes for 300 s. (kubus adds
them to a replaced pod too, where Kubernetes would refuse the replace for dropping tolerations.)"""
from __future__ import annotations

from api import tolerationseconds


class DefaultTolerationSeconds:
    name = "DefaultTolerationSeconds"

    def mutate(self, a) -> None:
        if a.kind != "Pod" or a.subresource or a.operation not in ("CREATE", "UPDATE"):
            return
        if a.operation == "UPDATE" and (a.obj.get("spec") or {}).get("tolerations"):
            return  # what it was given at its creation is there
        a.obj = tolerationseconds.admit_pod(a.obj)
