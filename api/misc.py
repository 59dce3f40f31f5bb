"""Namespace (core/v1), Event (core/v1) and Lease (coordination.k8s.io/v1)."""
from __future__ import annotations

from api.meta import K8sModel, Resource


class NamespaceSpec(K8sModel):
    finalizers: list[str] | None = None


class NamespaceStatus(K8sModel):
    phase: str | None = None


class Namespace(Resource):
    KIND = "Namespace"
    spec: NamespaceSpec | None = None
    status: NamespaceStatus | None = None


class ObjectReference(K8sModel):
    apiVersion: str | None = None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None
    fieldPath: str | None = None


class Event(Resource):
    KIND = "Event"
    involvedObject: ObjectReference
    reason: str | None = None
    message: str | None = None
    type: str | None = None
    count: int | None = None
    firstTimestamp: str | None = None
    lastTimestamp: str | None = None
    eventTime: str | None = None
    source: dict | None = None
    reportingComponent: str | None = None
    reportingInstance: str | None = None
    action: str | None = None


class LeaseSpec(K8sModel):
    holderIdentity: str | None = None
    leaseDurationSeconds: int | None = None
    acquireTime: str | None = None
    renewTime: str | None = None
    leaseTransitions: int | None = None


class Lease(Resource):
    API_VERSION = "coordination.k8s.io/v1"
    KIND = "Lease"
    spec: LeaseSpec | None = None


POD_SECURITY_ENFORCE = "pod-security.kubernetes.io/enforce"
POD_SECURITY_LEVELS = ("privileged", "baseline", "restricted")


def enforced_level(labels: dict | None) -> str:
    """The Pod Security level a namespace's labels enforce: `privileged` when unset (the admission's
    default), `restricted` when the label names no level (an enforce label fails closed)."""
    value = (labels or {}).get(POD_SECURITY_ENFORCE)
    if value is None:
        return "privileged"
    return value if value in POD_SECURITY_LEVELS else "restricted"
