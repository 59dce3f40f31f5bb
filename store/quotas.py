"""ResourceQuota, enforced where it cannot race: the store, the sole writer, checks a create against
the namespace's quotas and moves their `status.used` in the same commit as the object (Kubernetes
charges the quota by compare-and-swap from each apiserver; one writer makes that atomic). The
resourcequota controller recounts `status.used` from the live objects, as Kubernetes' does."""
from __future__ import annotations

from api import quota

KIND = "ResourceQuota"
ObjKey = tuple[str, str, str]


class QuotaIndex:
    """The ResourceQuotas of each namespace (a create looks only at its namespace's)."""

    def __init__(self) -> None:
        self.by_namespace: dict[str, set[ObjKey]] = {}

    def added(self, oid: ObjKey) -> None:
        if oid[0] == KIND:
            self.by_namespace.setdefault(oid[1], set()).add(oid)

    def dropped(self, oid: ObjKey) -> None:
        if oid[0] == KIND:
            self.by_namespace.get(oid[1], set()).discard(oid)

    def of(self, namespace: str) -> list[ObjKey]:
        return sorted(self.by_namespace.get(namespace) or ())


def charges(quotas: list[dict], kind: str, obj: dict) -> list[tuple[dict, dict]]:
    """Each quota that counts `obj`, as it will be stored with `obj` charged; Forbidden (Kubernetes'
    `exceeded quota: …`) when one would go over."""
    return [({**q, "status": {**(q.get("status") or {}), "used": used}}, q)
            for q, used in quota.check(quotas, obj, kind)]
