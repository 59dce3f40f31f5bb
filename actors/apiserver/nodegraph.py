"""The node authorizer's graph for ConfigMaps, Secrets, PersistentVolumeClaims and their volumes, asked
when a node reads one: Kubernetes allows `get` only when a pod bound to the node references the object
(env, envFrom, volumes, imagePullSecrets; a volume through its claim). Kubus keeps no graph: it lists the namespace's pods on that node (as itself) and
looks through them, then forwards the get, or answers Kubernetes' Forbidden."""
from __future__ import annotations

from actors.apiserver.attributes import of_request
from actors.apiserver.authz import forbidden
from api.podrefs import pod_refs
from bus.rpc import unwrap

REFERENCED = ("ConfigMap", "Secret", "PersistentVolumeClaim", "PersistentVolume")


class NodeGraph:
    def through_node_graph(self, call, kind: str, then) -> None:
        """Run `then` when a pod on the guarding node references the object (a PersistentVolume: the claim
        it is bound to), else refuse."""
        if kind == "PersistentVolume":
            volume = {"verb": "get", "kind": kind, "name": call.req.name}
            self.call_store(call, volume, "graph-pv", lambda r: self._claimed(call, unwrap(r), then), as_self=True)
            return
        self._pods(call, kind, call.req.namespace, call.req.name or "", then)

    def _claimed(self, call, reply: dict, then) -> None:
        ref = ((reply.get("object") or {}).get("spec") or {}).get("claimRef") or {}
        self._pods(call, "PersistentVolumeClaim", ref.get("namespace") or "", ref.get("name") or "", then)

    def _pods(self, call, kind: str, namespace: str, name: str, then) -> None:
        node = call.decision.node_guard
        listing = {"verb": "list", "kind": "Pod", "namespace": namespace,
                   "options": {"fieldSelector": f"spec.nodeName={node}"}}
        self.call_store(call, listing, "graph",
                        lambda r: self._linked(call, (kind, name), node, unwrap(r), then), as_self=True)

    def _linked(self, call, wanted: tuple[str, str], node: str, listed: dict, then) -> None:
        if any(wanted in pod_refs(pod) for pod in listed.get("items") or []):
            then()
            return
        raise forbidden(of_request(call.user, call.req)[0],
                        f"no relationship found between node '{node}' and this object")
