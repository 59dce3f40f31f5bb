"""The NodeRestriction admission plugin, on kubus' kinds: a kubelet may create only its own mirror
pods, update the status of pods bound to it (labels unchanged), write only its own Node (its taints
and protected labels untouched) and only its own Lease in kube-node-lease."""
from __future__ import annotations

from actors.apiserver.admission.serviceaccount import MIRROR_ANNOTATION, secret_names
from api.errors import admission_forbidden, not_found

NODE_LEASE_NAMESPACE = "kube-node-lease"
OPERATIONS = {"create": "CREATE", "update": "UPDATE", "patch": "UPDATE", "delete": "DELETE"}
KUBELET_LABELS = frozenset({
    "kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type", "kubernetes.io/os",
    "kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/arch"})
KUBELET_LABEL_DOMAINS = ("kubelet.kubernetes.io", "node.kubernetes.io")


def admit(node_name: str, verb: str, kind: str, subresource: str | None, obj: dict | None,
          old: dict | None, node: dict | None = None, user: str = "", namespace: str | None = None,
          name: str | None = None) -> None:
    """None when node `node_name` may do this; otherwise the Forbidden kube-apiserver gives. `node` is
    the live Node (a mirror pod's owner UID must be its UID); `user` names the caller when no node can
    be read from it; `namespace` and `name` are the request's, when it names them (an object naming
    others is refused: both must be the node's own)."""
    operation = OPERATIONS.get(verb, verb.upper())
    if not node_name:
        raise admission_forbidden(kind, obj or old, f'could not determine node from user "{user}"')
    if kind == "Pod":
        _pod(node_name, operation, subresource or "", obj, old, node)
    elif kind == "Node":
        _node(node_name, operation, obj, old, name)
    elif kind == "Lease":
        _lease(node_name, obj or old, namespace, name)


def _deny(kind: str, obj: dict | None, why: str):
    raise admission_forbidden(kind, obj, why)


def _pod(node_name: str, operation: str, subresource: str, obj, old, node) -> None:
    if subresource == "status":
        return _pod_status(node_name, operation, obj, old)
    if subresource == "eviction":
        if old is not None and (old.get("spec") or {}).get("nodeName") != node_name:
            _deny("Pod", old, f"node {node_name} can only evict pods with spec.nodeName set to itself")
        return None
    if subresource:
        _deny("Pod", obj or old, f"unexpected pod subresource \"{subresource}\", only 'status' and 'eviction' "
                                 f"are allowed")
    if operation == "CREATE":
        return mirror_pod_create(node_name, obj, node)
    if operation == "DELETE":
        if old is not None and (old.get("spec") or {}).get("nodeName") != node_name:
            _deny("Pod", old, f"node \"{node_name}\" can only delete pods with spec.nodeName set to itself")
        return None
    _deny("Pod", obj or old, f"unexpected operation \"{operation}\", node \"{node_name}\" can only create and "
                             f"delete mirror pods")


def _pod_status(node_name: str, operation: str, obj, old) -> None:
    if operation != "UPDATE":
        _deny("Pod", obj or old, f"unexpected operation \"{operation}\"")
    if ((old or {}).get("spec") or {}).get("nodeName") != node_name:
        _deny("Pod", obj, f"node \"{node_name}\" can only update pod status for pods with spec.nodeName set to "
                          f"itself")
    if ((obj.get("metadata") or {}).get("labels") or {}) != (((old or {}).get("metadata") or {}).get("labels") or {}):
        _deny("Pod", obj, f"node \"{node_name}\" cannot update labels through pod status")


def mirror_pod_create(node_name: str, pod: dict, node: dict | None) -> None:
    """admitPodCreate: a mirror pod bound to this node, owned (as controller) by this Node and nothing
    else, that references no account, secret, configmap, trust bundle or claim."""
    def deny(why: str):
        _deny("Pod", pod, why)

    meta, spec, quoted = pod.get("metadata") or {}, pod.get("spec") or {}, f'"{node_name}"'
    if MIRROR_ANNOTATION not in (meta.get("annotations") or {}):
        deny(f'pod does not have "{MIRROR_ANNOTATION}" annotation, node {quoted} can only create mirror pods')
    if spec.get("nodeName") != node_name:
        deny(f"node {quoted} can only create pods with spec.nodeName set to itself")
    _owner(node_name, meta.get("ownerReferences") or [], node, deny)
    if spec.get("serviceAccountName"):
        deny(f"node {quoted} can not create pods that reference a service account")
    if next(secret_names(pod), None) is not None:
        deny(f"node {quoted} can not create pods that reference secrets")
    if _references_configmaps(spec):
        deny(f"node {quoted} can not create pods that reference configmaps")
    volumes = spec.get("volumes") or []
    if any(s.get("clusterTrustBundle") is not None for s in _projections(volumes)):
        deny(f"node {quoted} can not create pods that reference clustertrustbundles")
    if any(v.get("persistentVolumeClaim") is not None for v in volumes):
        deny(f"node {quoted} can not create pods that reference persistentvolumeclaims")
    if spec.get("resourceClaims"):
        deny(f"node {quoted} can not create pods that reference resourceclaims")


def _owner(node_name: str, owners: list[dict], node: dict | None, deny) -> None:
    quoted = f'"{node_name}"'
    if len(owners) > 1:
        deny(f"node {quoted} can only create pods with a single owner reference set to itself")
    if not owners or (owners[0].get("apiVersion"), owners[0].get("kind"), owners[0].get("name")) != \
            ("v1", "Node", node_name):
        deny(f"node {quoted} can only create pods with an owner reference set to itself")
    owner = owners[0]
    if not owner.get("controller"):
        deny(f"node {quoted} can only create pods with a controller owner reference set to itself")
    if owner.get("blockOwnerDeletion"):
        deny(f"node {quoted} must not set blockOwnerDeletion on an owner reference")
    if node is None:
        raise not_found("Node", node_name)
    uid = (node.get("metadata") or {}).get("uid", "")
    if owner.get("uid", "") != uid:
        deny(f"node {node_name} UID mismatch: expected {owner.get('uid', '')} got {uid}")


def _references_configmaps(spec: dict) -> bool:
    containers = (spec.get("initContainers") or []) + (spec.get("containers") or []) + \
        (spec.get("ephemeralContainers") or [])
    for c in containers:
        if any(e.get("configMapRef") for e in c.get("envFrom") or []) or \
                any((e.get("valueFrom") or {}).get("configMapKeyRef") for e in c.get("env") or []):
            return True
    volumes = spec.get("volumes") or []
    return any(v.get("configMap") is not None for v in volumes) or \
        any(s.get("configMap") is not None for s in _projections(volumes))


def _projections(volumes: list[dict]) -> list[dict]:
    return [s for v in volumes for s in (v.get("projected") or {}).get("sources") or []]


def _node(node_name: str, operation: str, obj, old, requested: str | None) -> None:
    target = obj or old
    for name in _names(target, requested):
        if name != node_name:
            _deny("Node", target, f'node "{node_name}" is not allowed to modify node "{name}"')
    spec, labels = obj.get("spec") or {} if obj else {}, ((obj or {}).get("metadata") or {}).get("labels") or {}
    if operation == "CREATE":
        if spec.get("configSource") is not None:
            _deny("Node", obj, f'node "{node_name}" is not allowed to create pods with a non-nil configSource')
        bad = forbidden_labels(changed_labels(labels, {}))
        if bad:
            _deny("Node", obj, f'node "{node_name}" is not allowed to set the following labels: {", ".join(bad)}')
    elif operation == "UPDATE":
        old_spec = old.get("spec") or {}
        if spec.get("configSource") is not None and spec["configSource"] != old_spec.get("configSource"):
            _deny("Node", obj, f'node "{node_name}" is not allowed to update configSource to a new non-nil '
                               f'configSource')
        if (spec.get("taints") or []) != (old_spec.get("taints") or []):
            _deny("Node", obj, f'node "{node_name}" is not allowed to modify taints')
        bad = forbidden_labels(changed_labels(labels, (old.get("metadata") or {}).get("labels") or {}))
        if bad:
            _deny("Node", obj, f"is not allowed to modify labels: {', '.join(bad)}")


def changed_labels(new: dict, old: dict) -> set[str]:
    return {k for k in new.keys() | old.keys() if new.get(k) != old.get(k) or (k in new) != (k in old)}


def _domain(key: str) -> str:
    return key.split("/", 1)[0] if "/" in key else ""


def _in_domain(key: str, *domains: str) -> bool:
    domain = _domain(key)
    return any(domain == d or domain.endswith("." + d) for d in domains)


def is_kubelet_label(key: str) -> bool:
    return key in KUBELET_LABELS or _in_domain(key, *KUBELET_LABEL_DOMAINS)


def forbidden_labels(keys: set[str]) -> list[str]:
    """Sorted: node-restriction.kubernetes.io labels, and kubernetes.io / k8s.io labels a kubelet does not own."""
    return sorted(k for k in keys if _in_domain(k, "node-restriction.kubernetes.io")
                  or (_in_domain(k, "kubernetes.io", "k8s.io") and not is_kubelet_label(k)))


def _lease(node_name: str, lease: dict, namespace: str | None, name: str | None) -> None:
    meta = lease.get("metadata") or {}
    if {meta.get("namespace"), namespace} - {None} != {NODE_LEASE_NAMESPACE}:
        _deny("Lease", lease, f'can only access leases in the "{NODE_LEASE_NAMESPACE}" system namespace')
    if set(_names(lease, name)) != {node_name}:
        _deny("Lease", lease, "can only access node lease with the same name as the requesting node")


def _names(obj: dict, requested: str | None) -> list[str]:
    """The name the request asks for (if any) and the object's own: each must be the node's."""
    return [*([requested] if requested else []), (obj.get("metadata") or {}).get("name", "")]


# ---- the plugin in the apiserver's chain ----------------------------------------------------------

class NodeRestriction:
    name = "NodeRestriction"

    def mutate(self, a) -> None:
        if a.node is None:
            return
        old = a.old
        if a.operation == "UPDATE" and old is None:
            if a.kind == "Pod":
                return
            old = a.obj
        admit(a.node, a.operation.lower(), a.kind, a.subresource, a.obj, old,
                              namespace=a.namespace or None, name=a.name or None)
