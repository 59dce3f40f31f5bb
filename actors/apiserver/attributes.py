"""What the authorizer sees of a request (Kubernetes' request attributes): verb, API group,
resource and subresource, namespace and name — the request's, never its object's: a request without
a namespace is at the cluster scope. A snapshot or watch asks for several keys: each is its own list
(or watch) of a kind in a namespace, or on a node."""
from __future__ import annotations

from actors.apiserver.authz.node import node_identity
from actors.apiserver.authz.rules import Attributes, UserInfo
from api import metrics
from api.registry import REVIEWS, known, lookup
from bus.messages import Request
from bus.topology import NONE, word

# kubus verbs → (Kubernetes verb, subresource)
VERBS = {"create": ("create", ""), "get": ("get", ""), "list": ("list", ""), "update": ("update", ""),
         "updateStatus": ("update", "status"), "delete": ("delete", ""), "bind": ("create", "binding"),
         "logs": ("get", "log"), "token": ("create", "token"),
         "exec": ("create", "exec"), "attach": ("create", "attach"), "portforward": ("create", "portforward"),
         "evict": ("create", "eviction"), "deletecollection": ("deletecollection", "")}


def of_request(user: UserInfo, req: Request) -> list[Attributes]:
    """The attributes to authorize; every one must be allowed."""
    if req.verb in ("snapshot", "watch"):
        verb = "list" if req.verb == "snapshot" else "watch"
        return [of_key(user, verb, key) for key in req.options["keys"]]
    if req.kind in REVIEWS:
        group, resource = REVIEWS[req.kind]
        return [Attributes(user, "create", resource, group)]
    if req.kind in metrics.KINDS:  # metrics.k8s.io: served beside the registry, read only
        resource, namespaced = metrics.KINDS[req.kind]
        return [Attributes(user, VERBS.get(req.verb, (req.verb, ""))[0], resource, metrics.GROUP, "",
                           (req.namespace or "") if namespaced else "", req.name or "")]
    info = lookup(req.kind)
    if req.verb == "patch":
        verb, sub = "patch", req.options.get("subresource") or ""
    else:
        verb, sub = VERBS[req.verb]
    namespace = (req.namespace or "") if info.namespaced else ""  # none: the cluster scope (contract 5)
    return [Attributes(user, verb, info.plural, info.group, sub, namespace, req.name or "",
                       field_selector=_name_selector(req))]


def _name_selector(req: Request) -> str:
    return (req.options.get("fieldSelector") or "") if req.verb in ("list", "deletecollection") else ""


def of_key(user: UserInfo, verb: str, key: str) -> Attributes:
    """A binding key `kind.namespace.node` as a list/watch: `*`/`#` mean every namespace; a node
    segment that is the caller's own node becomes the field selector a node's watch carries."""
    parts = key.split(".")
    kind = parts[0]
    if kind in ("*", "#") or not known(kind):
        return Attributes(user, verb, "*", "*")
    info = lookup(kind)
    ns = parts[1] if len(parts) > 1 and info.namespaced else ""
    namespace = "" if ns in ("*", "#", NONE) else ns
    node = parts[2] if len(parts) > 2 else "#"
    name, is_node = node_identity(user)
    own = name if is_node else None
    selector = f"spec.nodeName={own}" if own is not None and node == word(own) and info.kind == "Pod" else ""
    if info.kind == "Node" and own is not None and node == word(own):
        return Attributes(user, verb, info.plural, "", namespace=namespace, name=own)
    return Attributes(user, verb, info.plural, info.group, namespace=namespace, field_selector=selector)
