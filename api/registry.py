"""The kinds kubus serves: model, apiVersion, scope and the names kubectl users type."""
from __future__ import annotations

from dataclasses import dataclass

from api.apps import ControllerRevision, DaemonSet, Deployment, ReplicaSet
from api.batch import Job
from api.config import ConfigMap, Secret
from api.discovery import EndpointSlice
from api.meta import Resource
from api.misc import Event, Lease, Namespace
from api.node import Node
from api.pod import Pod
from api.policy import LimitRange, PriorityClass, ResourceQuota, ServiceAccount
from api.rbac import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from api.service import Endpoints, Ingress, IngressClass, Service
from api.status import StatusError


@dataclass(frozen=True)
class KindInfo:
    kind: str
    model: type[Resource]
    api_version: str
    namespaced: bool
    plural: str
    short_names: tuple[str, ...] = ()
    unconditional_update: bool = False  # an update without resourceVersion is allowed
    has_spec_generation: bool = False  # metadata.generation follows spec changes
    name_is_label: bool = False  # DNS-1123 label instead of subdomain
    name_is_path: bool = False  # any path segment (RBAC: `system:controller:gc`) instead of a subdomain
    name_is_dns1035: bool = False  # DNS-1035 label (Services: a name that starts with a letter)

    @property
    def group(self) -> str:
        """The API group ("" for core)."""
        return self.api_version.rpartition("/")[0]

    @property
    def resource(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: dict[str, KindInfo] = {
    info.kind: info
    for info in (
        KindInfo("Pod", Pod, "v1", True, "pods", ("po",), unconditional_update=True),
        KindInfo("Node", Node, "v1", False, "nodes", ("no",), unconditional_update=True),
        KindInfo("Namespace", Namespace, "v1", False, "namespaces", ("ns",), name_is_label=True),
        KindInfo("Event", Event, "v1", True, "events", ("ev",), unconditional_update=True),
        KindInfo("Lease", Lease, "coordination.k8s.io/v1", True, "leases", unconditional_update=True),
        KindInfo("ReplicaSet", ReplicaSet, "apps/v1", True, "replicasets", ("rs",), has_spec_generation=True),
        KindInfo("Deployment", Deployment, "apps/v1", True, "deployments", ("deploy",),
                 has_spec_generation=True),
        KindInfo("DaemonSet", DaemonSet, "apps/v1", True, "daemonsets", ("ds",), has_spec_generation=True),
        KindInfo("ControllerRevision", ControllerRevision, "apps/v1", True, "controllerrevisions"),
        KindInfo("Job", Job, "batch/v1", True, "jobs", has_spec_generation=True),
        KindInfo("ServiceAccount", ServiceAccount, "v1", True, "serviceaccounts", ("sa",),
                 unconditional_update=True),
        KindInfo("LimitRange", LimitRange, "v1", True, "limitranges", ("limits",), unconditional_update=True),
        KindInfo("ResourceQuota", ResourceQuota, "v1", True, "resourcequotas", ("quota",),
                 unconditional_update=True),
        KindInfo("PriorityClass", PriorityClass, "scheduling.k8s.io/v1", False, "priorityclasses", ("pc",),
                 unconditional_update=True),
        KindInfo("Service", Service, "v1", True, "services", ("svc",), unconditional_update=True,
                 name_is_dns1035=True),
        KindInfo("Endpoints", Endpoints, "v1", True, "endpoints", ("ep",), unconditional_update=True),
        KindInfo("EndpointSlice", EndpointSlice, "discovery.k8s.io/v1", True, "endpointslices",
                 unconditional_update=True),
        KindInfo("ConfigMap", ConfigMap, "v1", True, "configmaps", ("cm",), unconditional_update=True),
        KindInfo("Secret", Secret, "v1", True, "secrets", unconditional_update=True),
        KindInfo("Ingress", Ingress, "networking.k8s.io/v1", True, "ingresses", ("ing",), unconditional_update=True),
        KindInfo("IngressClass", IngressClass, "networking.k8s.io/v1", False, "ingressclasses",
                 unconditional_update=True),
        *(KindInfo(model.KIND, model, model.API_VERSION, namespaced, plural, unconditional_update=True,
                   name_is_path=True)
          for model, namespaced, plural in ((Role, True, "roles"), (ClusterRole, False, "clusterroles"),
                                            (RoleBinding, True, "rolebindings"),
                                            (ClusterRoleBinding, False, "clusterrolebindings"))),
    )
}

_ALIASES: dict[str, str] = {}
for _info in KINDS.values():
    for _alias in (_info.kind, _info.plural, _info.plural[:-1], _info.resource, *_info.short_names):
        _ALIASES[_alias.lower()] = _info.kind


def lookup(name: str) -> KindInfo:
    """A kind by any of its names ('Pod', 'pods', 'po', 'deployments.apps'); NotFound if unknown."""
    kind = _ALIASES.get((name or "").lower())
    if kind is None:
        raise StatusError("NotFound", f'the server doesn\'t have a resource type "{name}"')
    return KINDS[kind]


def known(name: str) -> bool:
    return (name or "").lower() in _ALIASES


# The reviews a request may ask for, answered by the apiserver and routed by the gateway
REVIEWS = {"SelfSubjectAccessReview": ("authorization.k8s.io", "selfsubjectaccessreviews"),
           "SubjectAccessReview": ("authorization.k8s.io", "subjectaccessreviews"),
           "SelfSubjectReview": ("authentication.k8s.io", "selfsubjectreviews")}
