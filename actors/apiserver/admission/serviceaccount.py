"""ServiceAccount: a new pod runs as a ServiceAccount of its namespace (`default` unless named).

kubus admits a pod naming `default` before the ServiceAccount controller has made it (Kubernetes
waits up to about 2 s for it, then refuses): a namespace's first pod need not race the controller.
Any other ServiceAccount must exist."""
from __future__ import annotations

from api import serviceaccounts

DEFAULT = "default"


class ServiceAccount:
    name = "ServiceAccount"

    def mutate(self, a) -> None:
        if not a.pod_create:
            return
        wanted = (a.obj.get("spec") or {}).get("serviceAccountName") or DEFAULT
        account = a.cache.get("ServiceAccount", a.namespace, wanted)
        if account is None and wanted == DEFAULT:
            account = serviceaccounts.default_service_account(a.namespace)
        a.obj = serviceaccounts.admit_pod(a.obj, account)
