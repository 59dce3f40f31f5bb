"""The apiserver's local cache of the objects its chain reads: RBAC, namespaces, ServiceAccounts,
PriorityClasses, LimitRanges, ResourceQuotas, webhook configurations, the Services and EndpointSlices
webhooks are reached through. Fed by an informer (contract 4),
indexed by kind, namespace and name; it is the RBAC authorizer's source and admission's lister."""
from __future__ import annotations

from typing import Callable, Iterable

from api import customkinds
from runtime.cache import Delta

RBAC_KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
POLICY_KINDS = (*RBAC_KINDS, "Namespace", "ServiceAccount", "PriorityClass", "LimitRange", "ResourceQuota",
                "IngressClass", "CustomResourceDefinition", "StorageClass", "MutatingWebhookConfiguration",
                "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                "ConfigMap",  # ConfigMaps: policies' params
                "Service", "EndpointSlice")  # where a webhook's clientConfig.service is called


class PolicyCache:
    def __init__(self) -> None:
        self.objects: dict[str, dict[str, dict[str, dict]]] = {kind: {} for kind in POLICY_KINDS}
        self.rbac_generation = 0  # bumped on every RBAC change: memoized decisions older than it are void
        self.on_rbac_change: list[Callable[[], None]] = []

    def on_delta(self, delta: Delta) -> None:
        meta = delta.object["metadata"]
        by_ns = self.objects.setdefault(delta.kind, {}).setdefault(meta.get("namespace") or "", {})
        if delta.type == "DELETED":
            by_ns.pop(meta["name"], None)
        else:
            by_ns[meta["name"]] = delta.object
        if delta.kind == "CustomResourceDefinition":
            customkinds.on_event(delta.type, delta.object)
        if delta.kind in RBAC_KINDS:
            self.rbac_generation += 1
            for listener in self.on_rbac_change:
                listener()

    # ---- the lister admission reads ---------------------------------------------------------
    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        return self.objects.get(kind, {}).get(namespace or "", {}).get(name)

    def list(self, kind: str, namespace: str | None = None) -> list[dict]:
        by_ns = self.objects.get(kind, {})
        if namespace is not None:
            return list(by_ns.get(namespace, {}).values())
        return [obj for objs in by_ns.values() for obj in objs.values()]

    # ---- the RBAC authorizer's source ----------------------------------------------------------
    def cluster_role_bindings(self) -> Iterable[dict]:
        return self.objects["ClusterRoleBinding"].get("", {}).values()

    def role_bindings(self, namespace: str) -> Iterable[dict]:
        return self.objects["RoleBinding"].get(namespace, {}).values()

    def role(self, namespace: str, name: str) -> dict | None:
        return self.get("Role", namespace, name)

    def cluster_role(self, name: str) -> dict | None:
        return self.get("ClusterRole", None, name)
