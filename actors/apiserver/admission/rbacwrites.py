"""RBAC writes cannot escalate: a Role or ClusterRole holds only rules its writer holds (or may
`escalate`), and a binding grants only a role its writer holds (or may `bind`)."""
from __future__ import annotations

from actors.apiserver.authz import escalation
from actors.apiserver.authz.rules import Attributes

ROLES = ("Role", "ClusterRole")
BINDINGS = ("RoleBinding", "ClusterRoleBinding")
RBAC_GROUP = "rbac.authorization.k8s.io"


class RbacWrites:
    name = "RbacWrites"

    def validate(self, a) -> None:
        if a.operation not in ("CREATE", "UPDATE") or a.kind not in ROLES + BINDINGS:
            return
        attrs = Attributes(a.user, a.operation.lower(), a.info.plural, RBAC_GROUP, namespace=a.namespace,
                           name=a.name)
        if a.kind in ROLES:
            escalation.check_role_write(attrs, a.obj, a.old, a.cache)
        else:
            escalation.check_binding_write(attrs, a.obj, a.cache, old=a.old)
