"""The node authorizer's graph for ConfigMaps and Secrets, asked when a node reads one: Kubernetes
allows `get` only when a pod bound to the node references the object (env, envFrom, volumes,
imagePullSecrets). Kubus keeps no graph: it lists the namespace's pods on that node (as itself) and
looks through them, then forwards the get, or answers Kubernetes' Forbidden."""
from __future__ import annotations

from actors.apiserver.attributes import of_request
from actors.apiserver.authz import forbidden
from api.podrefs import pod_refs
from bus.rpc import unwrap

REFERENCED = ("ConfigMap", "Secret")


class NodeGraph:
    def through_node_graph(self, call, kind: str, then) -> None:
        """Run `then` when a pod on the guarding node references the object, else refuse."""
        req, node = call.req, call.decision.node_guard
        listing = {"verb": "list", "kind": "Pod", "namespace": req.namespace,
                   "options": {"fieldSelector": f"spec.nodeName={node}"}}
        self.call_store(call, listing, "graph",
                        lambda r: self._linked(call, kind, node, unwrap(r), then), as_self=True)

    def _linked(self, call, kind: str, node: str, listed: dict, then) -> None:
        wanted = (kind, call.req.name or "")
        if any(wanted in pod_refs(pod) for pod in listed.get("items") or []):
            then()
            return
        raise forbidden(of_request(call.user, call.req)[0],
                        f"no relationship found between node '{node}' and this object")
