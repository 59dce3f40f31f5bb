"""The node authorizer (kube-apiserver `plugin/pkg/auth/authorizer/node`, AuthorizeNodeWithSelectors
on), adapted to kubus: a kubelet `system:node:<name>` in group `system:nodes` may touch its own Node
and Lease, the pods bound to it, and what the static node rules list.

Kubus keeps no graph of objects to nodes. Where Kubernetes asks the graph whether a pod belongs to
the node, kubus allows the request with `node_guard=<node>` and the store refuses the command when
the stored pod's spec.nodeName differs. A node may get a Secret or ConfigMap a pod
bound to it references (the apiserver looks, actors/apiserver/nodegraph.py); volumes have no node
edges, so a node reads none of them (Kubernetes' answer for an object the graph does not link)."""
from __future__ import annotations

from typing import Callable

from actors.apiserver.authz.rules import Attributes, Decision, UserInfo, new_rule, rules_allow
from api.gojson import go_quote

NODE_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"
NODE_LEASE_NAMESPACE = "kube-node-lease"
NO_OPINION = Decision(False)

READ = ("get", "list", "watch")
R = "get list watch"


def node_identity(user: UserInfo) -> tuple[str, bool]:
    """(node name, is a node): a node's user name starts with `system:node:` and it is in `system:nodes`."""
    if not user.name.startswith(NODE_PREFIX) or NODES_GROUP not in user.groups:
        return "", False
    return user.name[len(NODE_PREFIX):], True


def node_rules() -> list[dict]:
    """bootstrappolicy `NodeRules()`: the `system:node` role, and what a node may do to kinds the
    node authorizer does not subdivide. Kubus adds reading endpoints and endpointslices (its node
    agent runs the service proxy in-process) and namespaces (a process-runtime node runs pods only of
    namespaces whose Pod Security level is privileged: it reads their labels)."""
    core = ("",)
    return [
        new_rule("create", ("authentication.k8s.io",), "tokenreviews"),
        new_rule("create", ("authorization.k8s.io",), "subjectaccessreviews localsubjectaccessreviews"),
        new_rule(R, core, "services"),
        new_rule(R, core, "namespaces"),
        new_rule("create get list watch", core, "nodes"),
        new_rule("update patch", core, "nodes/status"),
        new_rule("update patch", core, "nodes"),
        new_rule("create update patch", core, "events"),
        new_rule(R, core, "pods"),
        new_rule("create delete", core, "pods"),
        new_rule("update patch", core, "pods/status"),
        new_rule("create", core, "pods/eviction"),
        new_rule(R, core, "secrets configmaps"),
        new_rule("get", core, "persistentvolumeclaims persistentvolumes"),
        new_rule("get", core, "endpoints"),
        new_rule("create get list watch", ("certificates.k8s.io",), "certificatesigningrequests"),
        new_rule("get create update patch delete", ("coordination.k8s.io",), "leases"),
        new_rule("get", ("storage.k8s.io",), "volumeattachments"),
        new_rule("create", core, "serviceaccounts/token"),
        new_rule("get update patch", core, "persistentvolumeclaims/status"),
        new_rule(R, ("storage.k8s.io",), "csidrivers"),
        new_rule("get create update patch delete", ("storage.k8s.io",), "csinodes"),
        new_rule(R, ("node.k8s.io",), "runtimeclasses"),
        new_rule(R, core, "endpoints"),
        new_rule(R, ("discovery.k8s.io",), "endpointslices"),
    ]


STATIC_RULES = node_rules()


def node_authorize(attrs: Attributes) -> Decision:
    """Allow, allow with a node guard, or no opinion (with Kubernetes' reason) so RBAC decides."""
    node, is_node = node_identity(attrs.user)
    if not is_node:
        return NO_OPINION
    if not node:
        return Decision(False, f"unknown node for user {go_quote(attrs.user.name)}")
    if attrs.resource_request:
        subdivided = SUBDIVIDED.get((attrs.api_group, attrs.resource))
        if subdivided:
            return subdivided(node, attrs)
    return Decision(rules_allow(attrs, STATIC_RULES))


def _unrelated(node: str, attrs: Attributes) -> Decision:
    """Kubernetes' answer when the graph links the object to no node; kubus has no such edges."""
    if not attrs.name:
        return Decision(False, "No Object name found")
    return Decision(False, f"no relationship found between node '{node}' and this object")


def _bound_pod(node: str, attrs: Attributes) -> Decision:
    """Where Kubernetes follows the pod → node edge: allowed if the pod turns out to be on this node."""
    if not attrs.name:
        return Decision(False, "No Object name found")
    return Decision(True, node_guard=node)


def _read_namespaced(node: str, attrs: Attributes) -> Decision:
    if attrs.verb not in READ:
        return Decision(False, "can only read resources of this type")
    if attrs.subresource:
        return Decision(False, "cannot read subresource")
    if not attrs.namespace:
        return Decision(False, "can only read namespaced object of this type")
    return _unrelated(node, attrs)


def _referenced(node: str, attrs: Attributes) -> Decision:
    """A ConfigMap or Secret: a `get` by name is allowed with the node's guard, and the apiserver then
    checks a pod bound to the node references it (actors/apiserver/nodegraph.py), as the graph does;
    a list or watch, which kubus has no graph to narrow, is not."""
    decision = _read_namespaced(node, attrs)
    if attrs.verb == "get" and decision.reason.startswith("no relationship"):
        return Decision(True, node_guard=node)
    return decision


def _get(node: str, attrs: Attributes) -> Decision:
    if attrs.verb != "get":
        return Decision(False, "can only get individual resources of this type")
    if attrs.subresource:
        return Decision(False, "cannot get subresource")
    return _unrelated(node, attrs)


def _claim(node: str, attrs: Attributes) -> Decision:
    if attrs.subresource != "status":
        decision = _get(node, attrs)
        return Decision(True, node_guard=node) if decision.reason.startswith("no relationship") else decision
    if attrs.verb not in ("update", "patch"):
        return Decision(False, "can only get/update/patch this type")
    return _unrelated(node, attrs)


def _volume(node: str, attrs: Attributes) -> Decision:
    """A PersistentVolume: a `get` with the node's guard; the apiserver then checks it is bound to a claim a
    pod on the node uses (the graph's pv -> pvc -> pod edges)."""
    decision = _get(node, attrs)
    return Decision(True, node_guard=node) if decision.reason.startswith("no relationship") else decision


def _token(node: str, attrs: Attributes) -> Decision:
    """A token for a named ServiceAccount; the lead checks the token is bound to a pod on this node."""
    if attrs.verb != "create" or not attrs.name:
        return Decision(False, "can only create tokens for individual service accounts")
    if attrs.subresource != "token":
        return Decision(False, "can only create token subresource of serviceaccount")
    return Decision(True, node_guard=node)


def _lease(node: str, attrs: Attributes) -> Decision:
    if attrs.verb not in ("get", "create", "update", "patch", "delete"):
        return Decision(False, "can only get, create, update, patch, or delete a node lease")
    if attrs.namespace != NODE_LEASE_NAMESPACE:
        return Decision(False, f"can only access leases in the {go_quote(NODE_LEASE_NAMESPACE)} system namespace")
    if attrs.verb != "create" and attrs.name != node:
        return Decision(False, "can only access node lease with the same name as the requesting node")
    return Decision(True)


def _node(node: str, attrs: Attributes) -> Decision:
    """Create/update/patch are NodeRestriction's to narrow; reads only of its own Node."""
    if attrs.subresource == "status":
        return Decision(attrs.verb in ("update", "patch"))
    if attrs.subresource:
        return NO_OPINION
    if attrs.verb in ("create", "update", "patch"):
        return Decision(True)
    if attrs.verb not in READ:
        return NO_OPINION
    if attrs.name == node:
        return Decision(True)
    if not attrs.name:
        return Decision(False, f"node '{node}' cannot read all nodes, only its own Node object")
    return Decision(False, f"node '{node}' cannot read '{attrs.name}', only its own Node object")


def _pod(node: str, attrs: Attributes) -> Decision:
    verb, sub = attrs.verb, attrs.subresource
    if sub == "" and verb == "get":
        return _bound_pod(node, attrs)
    if sub == "" and verb in ("list", "watch"):
        return _list_pods(node, attrs)
    if sub == "" and verb == "create":
        return Decision(True)  # mirror pods; NodeRestriction narrows
    if (sub, verb) in (("", "delete"), ("status", "update"), ("status", "patch"), ("eviction", "create")):
        return _bound_pod(node, attrs)
    return NO_OPINION


def _list_pods(node: str, attrs: Attributes) -> Decision:
    if selects_node(attrs.field_selector, node):
        return Decision(True)
    if attrs.name:
        return _bound_pod(node, attrs)
    return Decision(False, "can only list/watch pods with spec.nodeName field selector")


def selects_node(field_selector: str, node: str, field: str = "spec.nodeName") -> bool:
    """A field selector with the term `spec.nodeName=<node>` (or `==`)."""
    for term in (field_selector or "").split(","):
        key, op, value = _split_term(term.strip())
        if key == field and op in ("=", "==") and value == node:
            return True
    return False


def _split_term(term: str) -> tuple[str, str, str]:
    for op in ("!=", "==", "="):
        key, found, value = term.partition(op)
        if found:
            return key, op, value
    return term, "", ""


SUBDIVIDED: dict[tuple[str, str], Callable[[str, Attributes], Decision]] = {
    ("", "nodes"): _node,
    ("", "pods"): _pod,
    ("coordination.k8s.io", "leases"): _lease,
    ("", "serviceaccounts"): _token,
    ("", "secrets"): _referenced,
    ("", "configmaps"): _referenced,
    ("", "persistentvolumeclaims"): _claim,
    ("", "persistentvolumes"): _volume,
    ("resource.k8s.io", "resourceclaims"): _get,
    ("storage.k8s.io", "volumeattachments"): _get,
}
