"""The clusterrole-aggregation controller: a ClusterRole with an `aggregationRule` holds the union of
the rules of the ClusterRoles its selectors pick (`api.aggregation.aggregate`), so `admin`, `edit`
and `view` grow when someone labels a new role `rbac.authorization.k8s.io/aggregate-to-view: "true"`.
As Kubernetes' does, any ClusterRole change requeues every aggregated ClusterRole, and a role is
written only when its rules differ (with a compare-and-swap update where Kubernetes uses server-side
apply; a Conflict retries from the fresher cache)."""
from __future__ import annotations

from actors.controllers.base import Controller
from api.aggregation import aggregate
from api.status import StatusError
from runtime.cache import Delta


class ClusterRoleAggregationController(Controller):
    name = "controller.clusterrole-aggregation"
    kinds = ("clusterrole",)

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        """Every aggregated ClusterRole: any role's labels or rules may change what it should hold."""
        return [name for (_, name), role in self.objects.get("ClusterRole", {}).items()
                if role.get("aggregationRule")]

    def reconcile(self, key: str) -> None:
        role = self.get("ClusterRole", "", key)
        if role is None:
            return
        try:
            rules = aggregate(role, list(self.objects.get("ClusterRole", {}).values()))
        except ValueError as exc:  # a selector that does not parse: left as it is until the role changes
            self.log.warning("aggregation.bad_selector", clusterrole=key, error=str(exc))
            return
        if rules is None:
            return
        self.log.info("aggregation.update", clusterrole=key, rules=len(rules), rv=role["metadata"]["resourceVersion"])
        self.write({"verb": "update", "kind": "ClusterRole", "name": key, "object": {**role, "rules": rules},
                    "resourceVersion": role["metadata"]["resourceVersion"]},
                   lambda r: self.retry(key) if isinstance(r, StatusError) else None)
