"""Which nodes a DaemonSet's pod belongs on, and the pod it makes for one (Kubernetes'
daemon_controller.go `NodeShouldRunDaemonPod` and daemon/util/daemonset_util.go): the template's
nodeName, nodeSelector and required node affinity must match, its NoSchedule/NoExecute taints be
tolerated (a running pod stays while only NoSchedule taints are not); each pod gets the automatic
tolerations and a required `matchFields metadata.name In [node]` term so the scheduler binds it."""
from __future__ import annotations

import copy

from actors.controllers.claims import controller_ref
from actors.controllers.history import HASH_LABEL
from api.apps import TEMPLATE_GENERATION
from api.selectors import requirement
from api.tolerations import tolerates

GENERATION_LABEL = "pod-template-generation"
NAME_FIELD = "metadata.name"
_NODE = "node.kubernetes.io/"
DAEMON_TOLERATIONS = (
    {"key": _NODE + "not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": _NODE + "unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": _NODE + "disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": _NODE + "memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": _NODE + "pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": _NODE + "unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
HOST_NETWORK_TOLERATION = {"key": _NODE + "network-unavailable", "operator": "Exists", "effect": "NoSchedule"}


def daemon_tolerations(spec: dict) -> list[dict]:
    """AddOrUpdateDaemonPodTolerations: the template's tolerations plus the automatic ones it lacks."""
    added = list(DAEMON_TOLERATIONS) + ([HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") else [])
    have = list(spec.get("tolerations") or [])
    return have + [dict(t) for t in added if not any(_same(t, h) for h in have)]


def _same(a: dict, b: dict) -> bool:
    """Toleration.MatchToleration: key, operator, value and effect alike."""
    return all((a.get(f) or "") == (b.get(f) or "") for f in ("key", "operator", "value", "effect"))


def _requirement_matches(req: dict, labels: dict) -> bool:
    try:
        return requirement(req.get("key", ""), req.get("operator", ""), req.get("values") or []).matches(labels)
    except ValueError:
        return False


def _term_matches(term: dict, node: dict) -> bool | None:
    """A node selector term's expressions and fields ANDed; None for an empty term."""
    exprs, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not exprs and not fields:
        return None
    labels = node["metadata"].get("labels") or {}
    name = {NAME_FIELD: node["metadata"]["name"]}
    return all(_requirement_matches(r, labels) for r in exprs) and \
        all(len(r.get("values") or []) == 1 and _requirement_matches(r, name) for r in fields)


def affinity_matches(spec: dict, node: dict) -> bool:
    """nodeSelector AND the required node affinity's terms ORed (GetRequiredNodeAffinity(pod).Match)."""
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return True
    return any(_term_matches(t, node) for t in required.get("nodeSelectorTerms") or [])


def _untolerated(taints: list[dict], tolerations: list[dict], effects: tuple[str, ...]) -> bool:
    return any(t.get("effect") in effects and not any(tolerates(tol, t) for tol in tolerations) for t in taints)


def should_run(ds: dict, node: dict, tolerations: list[dict] | None = None) -> tuple[bool, bool]:
    """(should run, should continue running) of NodeShouldRunDaemonPod; `tolerations` the pod's, if known."""
    spec = (ds["spec"].get("template") or {}).get("spec") or {}
    name = node["metadata"]["name"]
    if spec.get("nodeName") and spec["nodeName"] != name:
        return False, False
    if not affinity_matches(spec, node):
        return False, False
    taints = (node.get("spec") or {}).get("taints") or []
    if not taints:
        return True, True
    tolerations = daemon_tolerations(spec) if tolerations is None else tolerations
    if _untolerated(taints, tolerations, ("NoSchedule", "NoExecute")):
        return False, not _untolerated(taints, tolerations, ("NoExecute",))
    return True, True


def placement(ds: dict, nodes: list[dict]) -> dict[str, tuple[bool, bool]]:
    """should_run of every node, by name (the pod's tolerations worked out once)."""
    tolerations = daemon_tolerations((ds["spec"].get("template") or {}).get("spec") or {})
    return {n["metadata"]["name"]: should_run(ds, n, tolerations) for n in nodes}


def target_node(pod: dict) -> str | None:
    """GetTargetNodeName: the node a daemon pod is bound to, or the one its affinity term names."""
    if pod["spec"].get("nodeName"):
        return pod["spec"]["nodeName"]
    required = (((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for req in term.get("matchFields") or []:
            if req.get("key") == NAME_FIELD and req.get("operator") == "In" and len(req.get("values") or []) == 1:
                return req["values"][0]
    return None


def node_affinity_for(affinity: dict | None, node: str) -> dict:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become the one naming the node."""
    affinity = copy.deepcopy(affinity or {})
    term = {"matchFields": [{"key": NAME_FIELD, "operator": "In", "values": [node]}]}
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    required["nodeSelectorTerms"] = [term]
    return affinity


def pod_for(ds: dict, node: str, hash_: str) -> dict:
    """The pod for `node`: the template with the revision's hash and generation labels, the automatic
    tolerations, the node's affinity term and the DaemonSet's controller reference."""
    template = copy.deepcopy(ds["spec"].get("template") or {})
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    generation = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION)
    labels = {**(meta.get("labels") or {}), HASH_LABEL: hash_, GENERATION_LABEL: generation or "1"}
    spec["tolerations"] = daemon_tolerations(spec)
    spec["affinity"] = node_affinity_for(spec.get("affinity"), node)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": f"{ds['metadata']['name']}-", "namespace": ds["metadata"]["namespace"],
                         "labels": labels, **({"annotations": meta["annotations"]} if meta.get("annotations") else {}),
                         "ownerReferences": [controller_ref(ds)]},
            "spec": spec}
