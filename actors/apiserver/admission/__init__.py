"""Admission, in Kubernetes' order: every mutating plugin, then (after the object is validated)
every validating plugin. A plugin is a small class with `mutate(attempt)` and/or
`validate(attempt)`; it changes `attempt.obj`, adds warnings and audit annotations, or raises a
StatusError. The Kubernetes logic lives in `api/`; these are the wiring to the apiserver's cache."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from actors.apiserver.authz.node import node_identity
from actors.apiserver.authz.rules import UserInfo
from api.registry import KindInfo



@dataclass
class Attempt:
    """One write on its way through admission."""

    operation: str  # CREATE UPDATE DELETE, as Kubernetes' admission names them
    info: KindInfo
    subresource: str
    namespace: str
    name: str
    obj: dict | None
    old: dict | None
    user: UserInfo
    cache: Any  # actors.apiserver.policycache.PolicyCache
    warnings: list[str] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def node(self) -> str | None:
        """The node a kubelet calls as (`system:node:<name>` in `system:nodes`), else None."""
        name, is_node = node_identity(self.user)
        return name if is_node else None

    @property
    def pod_create(self) -> bool:
        return self.kind == "Pod" and self.operation == "CREATE" and not self.subresource


def _plugins():
    from actors.apiserver.admission import ingressclass, limits, noderestriction, podsecurity, priority, \
        rbacwrites, serviceaccount, tolerations
    mutating = [limits.LimitRanger(), serviceaccount.ServiceAccount(), noderestriction.NodeRestriction(),
                priority.Priority(), tolerations.DefaultTolerationSeconds(), ingressclass.DefaultIngressClass()]
    validating = [limits.LimitRanger(), podsecurity.PodSecurity(), priority.Priority(), rbacwrites.RbacWrites()]
    # ResourceQuota, last in Kubernetes' list, is the store's (store/quotas.py): it cannot race there
    return mutating, validating


MUTATING, VALIDATING = _plugins()


def mutate(attempt: Attempt) -> None:
    for plugin in MUTATING:
        if hasattr(plugin, "mutate"):
            plugin.mutate(attempt)


def validate(attempt: Attempt) -> None:
    for plugin in VALIDATING:
        if hasattr(plugin, "validate"):
            plugin.validate(attempt)
