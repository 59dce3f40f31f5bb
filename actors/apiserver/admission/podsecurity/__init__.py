"""PodSecurity: the namespace's `pod-security.kubernetes.io/*` labels; pods are refused (enforce),
pod templates only warned about; namespaces with invalid labels are refused, and a namespace
made stricter warns about the pods it already has."""
from __future__ import annotations

from actors.apiserver.admission.podsecurity import policy
from api.errors import invalid
from api.status import StatusError

TEMPLATED = ("ReplicaSet", "Deployment")


LABEL_PREFIX = "pod-security.kubernetes.io/"
PRIVILEGED = {"pod-security.kubernetes.io/enforce-policy": "privileged:latest"}


def _labels(cache, namespace: str) -> dict:
    ns = cache.get("Namespace", None, namespace)
    return ((ns or {}).get("metadata") or {}).get("labels") or {}


def _unlabelled(labels: dict) -> bool:
    """No Pod Security label: the cluster default, privileged everywhere (the common case, decided
    without parsing anything)."""
    return not any(key.startswith(LABEL_PREFIX) for key in labels)


def enforced(cache, namespace: str) -> bool:
    """Whether the namespace's labels ask for more than `privileged` (only then does a pod update
    need its stored pod, to judge whether the change is significant)."""
    labels = _labels(cache, namespace)
    return not _unlabelled(labels) and not policy.parse_policy(labels)[0].fully_privileged()


class PodSecurity:
    name = "PodSecurity"

    def validate(self, a) -> None:
        if a.operation not in ("CREATE", "UPDATE"):
            return
        if a.kind == "Namespace":
            self._namespace(a)
        elif a.kind == "Pod" or a.kind in TEMPLATED:
            self._pod(a)

    def _pod(self, a) -> None:
        labels = _labels(a.cache, a.namespace)
        if _unlabelled(labels):
            a.annotations.update(PRIVILEGED)
            return
        result = policy.admit(labels, a.kind, a.obj, a.subresource, a.old)
        a.annotations.update(result.audit_annotations)
        if result.forbidden_message:
            raise StatusError("Forbidden", f'pods "{a.name}" is forbidden: {result.forbidden_message}',
                              details={"name": a.name, "kind": "pods"})
        a.warnings.extend(result.warnings)

    def _namespace(self, a) -> None:
        labels = (a.obj.get("metadata") or {}).get("labels") or {}
        old_labels = ((a.old or {}).get("metadata") or {}).get("labels") if a.old else None
        causes = policy.label_causes(labels, old=old_labels) if a.old else policy.label_causes(labels)
        if causes:
            raise invalid("Namespace", a.name, causes)
