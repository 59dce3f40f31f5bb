"""The DefaultTolerationSeconds admission plugin: a pod that does not say how long it stays on a
not-ready or unreachable node gets 300 s of each, so its eviction waits out short blips."""
from __future__ import annotations

from api.pod import own_spec

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300  # --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds


def _covers(toleration: dict, key: str) -> bool:
    """Any toleration with the taint's key (or no key) and NoExecute (or no effect) already decides."""
    return (toleration.get("key") or "") in (key, "") and (toleration.get("effect") or "") in ("NoExecute", "")


def admit_pod(pod: dict, not_ready: int = DEFAULT_SECONDS, unreachable: int = DEFAULT_SECONDS) -> dict:
    """The pod with the two NoExecute tolerations it lacks appended; the input is not changed."""
    tolerations = list((pod.get("spec") or {}).get("tolerations") or [])
    missing = [{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
               for key, seconds in ((NOT_READY, not_ready), (UNREACHABLE, unreachable))
               if not any(_covers(t, key) for t in tolerations)]
    if not missing:
        return pod
    pod = own_spec(pod)
    spec = pod.setdefault("spec", {})
    spec["tolerations"] = (spec.get("tolerations") or []) + missing
    return pod


# ---- the plugin in the apiserver's chain ----------------------------------------------------------

class DefaultTolerationSeconds:
    name = "DefaultTolerationSeconds"

    def mutate(self, a) -> None:
        if a.kind != "Pod" or a.subresource or a.operation not in ("CREATE", "UPDATE"):
            return
        if a.operation == "UPDATE" and (a.obj.get("spec") or {}).get("tolerations"):
            return  # what it was given at its creation is there
        a.obj = admit_pod(a.obj)
