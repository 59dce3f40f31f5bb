"""Two tenants on one cluster, for the scope attacks: bob holds `admin` in `default` only; team-b is
another tenant's namespace, with a pod `web` bound to node-2 (same name as bob's own pod, bound to
node-1)."""
from __future__ import annotations

from testkit.waiting import wait_until

RBAC = "rbac.authorization.k8s.io"
VICTIM_NS = "team-b"


def pod(name: str, namespace: str | None, node: str | None = None, image: str = "busybox") -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "app", "image": image}], **({"nodeName": node} if node else {})}}


def admin_binding(namespace: str | None, user: str = "bob") -> dict:
    meta = {"name": f"{user}-admin", **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": f"{RBAC}/v1", "kind": "RoleBinding", "metadata": meta,
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "admin"},
            "subjects": [{"kind": "User", "apiGroup": RBAC, "name": user}]}


def two_tenants(admin, procs) -> None:
    """bob is `admin` in `default`; pods `web` in default (node-1) and in team-b (node-2)."""
    procs.start("actors.controllers", "clusterrole-aggregation", label="aggregation")
    admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": VICTIM_NS}})
    for node in ("node-1", "node-2"):
        admin.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}})
    admin.create(pod("web", "default", "node-1"))
    admin.create(pod("web", VICTIM_NS, "node-2"))
    admin.create(admin_binding("default"))
    wait_until(lambda: any("pods" in (r.get("resources") or ()) for r in admin.get("ClusterRole", "admin")["rules"]),
               30, what="the admin role aggregated")
