"""The root-CA publisher (Kubernetes' rootcacertpublisher): every Active namespace has the ConfigMap
`kube-root-ca.crt` whose `ca.crt` is the cluster's root CA (the gateway's, `Settings.gateway_tls_dir`),
so a pod can verify the API server. It reacts to namespaces (added, changed) and to that ConfigMap
(changed or deleted): a missing one is made, one whose data or description differs is put back by
an update, so a person's edit is reverted; AlreadyExists and a terminating namespace are nothing to do."""
from __future__ import annotations

from actors.controllers.base import Controller
from actors.controllers.serviceaccount import nothing_to_do
from api.config import ROOT_CA_CONFIGMAP
from api.status import StatusError
from runtime.cache import Delta

DESCRIPTION_KEY = "kubernetes.io/description"
DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
               "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
               "distributions of Kubernetes clusters.")


def wanted(namespace: str, ca: str, old: dict | None = None) -> dict:
    """The ConfigMap as it must be: `old`'s other metadata kept (labels, resourceVersion for the update)."""
    meta = dict((old or {}).get("metadata") or {"name": ROOT_CA_CONFIGMAP, "namespace": namespace})
    meta["annotations"] = {**(meta.get("annotations") or {}), DESCRIPTION_KEY: DESCRIPTION}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"ca.crt": ca}}


def as_wanted(cm: dict, ca: str) -> bool:
    return cm.get("data") == {"ca.crt": ca} and not cm.get("binaryData") and bool(
        (cm["metadata"].get("annotations") or {}).get(DESCRIPTION_KEY))


class RootCAPublisher(Controller):
    name = "controller.root-ca-cert-publisher"
    kinds = ("namespace", "configmap")

    def __init__(self, settings, **kw):
        super().__init__(settings, **kw)
        self.ca_file = settings.gateway_tls_dir / "ca.crt"
        self.ca: str | None = None

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        if delta.kind == "Namespace":
            return [] if delta.type == "DELETED" else [meta["name"]]
        return [meta.get("namespace") or ""] if meta["name"] == ROOT_CA_CONFIGMAP else []

    def _read_ca(self) -> str | None:
        if self.ca is None:
            try:
                self.ca = self.ca_file.read_text()
            except OSError as exc:
                self.log.warning("rootca.no_ca", file=str(self.ca_file), error=str(exc))
        return self.ca

    def reconcile(self, key: str) -> None:
        ns = self.get("Namespace", "", key)
        if ns is None or (ns.get("status") or {}).get("phase") != "Active" or ns["metadata"].get("deletionTimestamp"):
            return
        ca = self._read_ca()
        if ca is None:
            self.retry(key)  # the gateway (or `kubus bootstrap`) has not made the CA yet
            return
        cm = self.get("ConfigMap", key, ROOT_CA_CONFIGMAP)
        if cm is not None and as_wanted(cm, ca):
            return
        verb = "create" if cm is None else "update"
        self.log.info(f"rootca.{verb}", namespace=key)
        self.write({"verb": verb, "kind": "ConfigMap", "namespace": key, "name": ROOT_CA_CONFIGMAP,
                    "object": wanted(key, ca, cm)}, lambda result: self._written(key, verb, result))

    def _written(self, namespace: str, verb: str, result: dict | StatusError) -> None:
        if isinstance(result, StatusError) and not (nothing_to_do(result) or result.reason == "NotFound"):
            self.log.info(f"rootca.{verb}_failed", namespace=namespace, reason=result.reason,
                          message=result.message[:200])
            self.retry(namespace)
