"""Admission, in Kubernetes' order: every mutating plugin, then (after the object is validated)
every validating plugin. A plugin is a small class with `mutate(attempt)` and/or
`validate(attempt)`; it changes `attempt.obj`, adds warnings and audit annotations, or raises a
StatusError. Each plugin is one file here, its Kubernetes logic and its wiring to the apiserver's cache
together (Kubernetes' `plugin/pkg/admission/<name>`); ORDER lists them once, in Kubernetes'
`AllOrderedPlugins` order, and a plugin runs in each phase it has a method for. ResourceQuota, last
in Kubernetes' list, is the store's (`store/quotas.py` over `api/quota.py`): it cannot race there."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from actors.apiserver.admission import (ingressclass, limitranger, noderestriction, podsecurity, policy, priority,
                                        rbacwrites, serviceaccount, storageclass, tolerationseconds, webhook)
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
    dry_run: bool = False
    webhooks: dict[str, list] = field(default_factory=dict)  # phase -> the webhooks to call (webhook/)
    authorize: Any = None  # the apiserver's authorizer (Attributes -> Decision), for CEL's `authorizer`

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


ORDER = (  # a new plugin is one file and one line here
    limitranger.LimitRanger(),
    serviceaccount.ServiceAccount(),
    noderestriction.NodeRestriction(),
    podsecurity.PodSecurity(),
    priority.Priority(),
    tolerationseconds.DefaultTolerationSeconds(),
    storageclass.DefaultStorageClass(),
    storageclass.StorageObjectInUseProtection(),
    ingressclass.DefaultIngressClass(),
    policy.ValidatingAdmissionPolicy(),
    rbacwrites.RbacWrites(),  # kubus's: Kubernetes checks escalation in the RBAC REST storage
    webhook.MutatingAdmissionWebhook(),  # plans here; calls after the synchronous chain (webhook/dispatch.py)
    webhook.ValidatingAdmissionWebhook(),
)
MUTATING = tuple(plugin for plugin in ORDER if hasattr(plugin, "mutate"))
VALIDATING = tuple(plugin for plugin in ORDER if hasattr(plugin, "validate"))
ON_DELETE = (policy.ValidatingAdmissionPolicy, webhook.MutatingAdmissionWebhook,
             webhook.ValidatingAdmissionWebhook)  # the plugins a DELETE meets (object null, oldObject the stored)


def mutate(attempt: Attempt) -> None:
    for plugin in MUTATING:
        plugin.mutate(attempt)


def validate(attempt: Attempt) -> None:
    for plugin in VALIDATING:
        plugin.validate(attempt)


def mutate_delete(attempt: Attempt) -> None:
    for plugin in MUTATING:
        if isinstance(plugin, ON_DELETE):
            plugin.mutate(attempt)


def validate_delete(attempt: Attempt) -> None:
    for plugin in VALIDATING:
        if isinstance(plugin, ON_DELETE):
            plugin.validate(attempt)
