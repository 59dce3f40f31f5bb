"""The serviceaccount controller: every Active namespace has a ServiceAccount `default`, because the
ServiceAccount admission plugin gives every pod without one that account and refuses the pod when it
does not exist. As Kubernetes' controller does, it reacts to namespaces (added, changed) and to the
deletion of a `default` account (made again), and takes AlreadyExists and a terminating namespace's
refusal as nothing to do."""
from __future__ import annotations

from actors.controllers.base import Controller
from api.status import StatusError
from runtime.cache import Delta

DEFAULT = "default"
TERMINATING = "because it is being terminated"  # the store's NamespaceTerminating refusal


def account(namespace: str) -> dict:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": DEFAULT, "namespace": namespace}}


def nothing_to_do(exc: StatusError) -> bool:
    """Someone made it first, or the namespace is going away: either way the work is done."""
    if exc.reason == "AlreadyExists":
        return True
    terminating = any(c.reason == "NamespaceTerminating" for c in exc.causes)
    return exc.reason == "Forbidden" and (terminating or TERMINATING in exc.message)


class ServiceAccountController(Controller):
    name = "controller.serviceaccount"
    kinds = ("namespace", "serviceaccount")

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        """The namespace to look at: a namespace that is there, or the home of a deleted `default`."""
        meta = delta.object["metadata"]
        if delta.kind == "Namespace":
            return [] if delta.type == "DELETED" else [meta["name"]]
        if delta.type == "DELETED" and meta["name"] == DEFAULT:
            return [meta.get("namespace") or ""]
        return []

    def reconcile(self, key: str) -> None:
        ns = self.get("Namespace", "", key)
        if ns is None or (ns.get("status") or {}).get("phase") != "Active" or ns["metadata"].get("deletionTimestamp"):
            return
        if self.get("ServiceAccount", key, DEFAULT) is not None:
            return
        self.log.info("serviceaccount.create", namespace=key)
        self.write({"verb": "create", "kind": "ServiceAccount", "namespace": key, "object": account(key)},
                   lambda result: self._created(key, result))

    def _created(self, namespace: str, result: dict | StatusError) -> None:
        if isinstance(result, StatusError) and not nothing_to_do(result):
            self.log.info("serviceaccount.create_failed", namespace=namespace, reason=result.reason,
                          message=result.message[:200])
            self.retry(namespace)
