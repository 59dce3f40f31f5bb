"""ResourceQuota: a create that would take a namespace over a quota is refused; otherwise the new
usage is recorded in each quota's status (a compare-and-swap by the apiserver before the write,
so apiservers never race each other past a limit)."""
from __future__ import annotations

from api import quota


class ResourceQuota:
    name = "ResourceQuota"

    def validate(self, a) -> None:
        if a.operation != "CREATE" or a.subresource or not a.info.namespaced:
            return
        quotas = a.cache.list("ResourceQuota", a.namespace)
        if quotas:
            a.charges = quota.check(quotas, a.obj, a.kind)
