"""Scope is the request's, never the body's (DESIGN contract 5): a request's namespace and name are
what is authorized and acted on. A namespaced kind's request without a namespace may only span
namespaces (a list, a watch); a write's object may leave its namespace and name out (the request
fills them in, as kube-apiserver does) but may not name others. Checked by the apiserver and again
by the store, in kube-apiserver's words (`EnsureObjectNamespaceMatchesRequestNamespace`, the
update handler's `checkName`, the registry's key function)."""
from __future__ import annotations

from api.registry import KindInfo, known, lookup
from api.status import bad_request

NAMESPACE_REQUIRED = "Namespace parameter required."
NAME_REQUIRED = "Name parameter required."
CREATE_MISMATCH = "the namespace of the provided object does not match the namespace sent on the request"
SPANNING = frozenset(("list", "snapshot", "watch"))  # the verbs that may read every namespace
PLACED = frozenset(("create", "update", "updateStatus"))  # the verbs whose object is written as sent


def require_namespace(kind: str, verb: str, namespace: str | None) -> None:
    """BadRequest when a request of a namespaced kind names no namespace and does not span them."""
    if verb not in SPANNING and known(kind) and lookup(kind).namespaced and not namespace:
        raise bad_request(NAMESPACE_REQUIRED)


def placed(info: KindInfo, verb: str, namespace: str | None, name: str | None, obj: dict) -> dict:
    """The object of a create or update where its request puts it: its namespace (and, given one, its
    name) filled in from the request where it leaves them out — a cluster-scoped kind's namespace
    cleared; BadRequest where it names others."""
    meta = obj.get("metadata", {})
    if not isinstance(meta, dict):
        return obj  # not an object's metadata: validation says so
    meta = dict(meta)
    own_ns, own_name = meta.get("namespace") or None, meta.get("name") or None
    if verb != "create" and not name:
        raise bad_request(NAME_REQUIRED)
    if name and own_name not in (None, name):
        raise bad_request(f"the name of the object ({own_name}) does not match the name on the URL ({name})")
    if info.namespaced and own_ns not in (None, namespace):
        raise bad_request(CREATE_MISMATCH if verb == "create" else
                          f"the namespace of the object ({own_ns}) does not match the namespace on the request "
                          f"({namespace})")
    if info.namespaced:
        meta["namespace"] = namespace
    else:
        meta.pop("namespace", None)
    if name:
        meta["name"] = name
    return {**obj, "metadata": meta}


def names_the_pod(what: str, namespace: str | None, name: str | None, obj) -> None:
    """A pod subresource's object (a Binding, an Eviction) may name only the request's pod: BadRequest
    as kube-apiserver's create handler and its BindingREST / EvictionREST answer."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        return
    if meta.get("namespace") not in (None, "", namespace):
        raise bad_request(CREATE_MISMATCH)
    if meta.get("name") not in (None, "", name):
        raise bad_request(f"name in URL does not match name in {what} object")
