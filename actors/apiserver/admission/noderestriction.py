"""NodeRestriction: a kubelet writes only its own Node and Lease, mirror pods bound to itself, and
status of the pods bound to it.

A status update comes without the stored object: a pod's binding is then the store's guard to
check, and of a Node only the name can be (the status subresource changes no labels or taints).
The request's namespace and name are compared with the object's: the node's rights are checked on
what is written (the store writes where the request says, api/scope.py)."""
from __future__ import annotations

from api import noderestriction


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
        noderestriction.admit(a.node, a.operation.lower(), a.kind, a.subresource, a.obj, old,
                              namespace=a.namespace or None, name=a.name or None)
