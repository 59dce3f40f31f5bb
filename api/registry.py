"""The kinds kubus serves: model, apiVersion, scope and the names kubectl users type."""
from __future__ import annotations

from dataclasses import dataclass

from api.admissionregistration import MutatingWebhookConfiguration, ValidatingWebhookConfiguration
from api.admissionpolicy import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from api.apiextensions import CustomResourceDefinition
from api.apps import ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet
from api.autoscaling import HorizontalPodAutoscaler
from api.batch import Job
from api.config import ConfigMap, Secret
from api.cronjob import CronJob
from api.discovery import EndpointSlice
from api.meta import Resource
from api.misc import Event, Lease, Namespace
from api.node import Node
from api.pdb import PodDisruptionBudget
from api.pod import Pod
from api.policy import LimitRange, PriorityClass, ResourceQuota, ServiceAccount
from api.replication import PodTemplate, ReplicationController
from api.rbac import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from api.service import Endpoints, Ingress, IngressClass, Service
from api.status import StatusError
from api.storage import PersistentVolume, PersistentVolumeClaim, StorageClass


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
        KindInfo("StatefulSet", StatefulSet, "apps/v1", True, "statefulsets", ("sts",), has_spec_generation=True),
        KindInfo("ControllerRevision", ControllerRevision, "apps/v1", True, "controllerrevisions"),
        KindInfo("Job", Job, "batch/v1", True, "jobs", has_spec_generation=True),
        KindInfo("CronJob", CronJob, "batch/v1", True, "cronjobs", ("cj",), has_spec_generation=True),
        KindInfo("ReplicationController", ReplicationController, "v1", True, "replicationcontrollers", ("rc",),
                 has_spec_generation=True),
        KindInfo("PodTemplate", PodTemplate, "v1", True, "podtemplates"),
        KindInfo("HorizontalPodAutoscaler", HorizontalPodAutoscaler, "autoscaling/v2", True,
                 "horizontalpodautoscalers", ("hpa",), has_spec_generation=True),
        KindInfo("PodDisruptionBudget", PodDisruptionBudget, "policy/v1", True, "poddisruptionbudgets", ("pdb",),
                 has_spec_generation=True),
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
        KindInfo("PersistentVolume", PersistentVolume, "v1", False, "persistentvolumes", ("pv",),
                 unconditional_update=True),
        KindInfo("PersistentVolumeClaim", PersistentVolumeClaim, "v1", True, "persistentvolumeclaims", ("pvc",),
                 unconditional_update=True),
        KindInfo("StorageClass", StorageClass, "storage.k8s.io/v1", False, "storageclasses", ("sc",),
                 unconditional_update=True),
        KindInfo("Ingress", Ingress, "networking.k8s.io/v1", True, "ingresses", ("ing",), unconditional_update=True),
        KindInfo("IngressClass", IngressClass, "networking.k8s.io/v1", False, "ingressclasses",
                 unconditional_update=True),
        KindInfo("CustomResourceDefinition", CustomResourceDefinition, CustomResourceDefinition.API_VERSION, False,
                 "customresourcedefinitions", ("crd", "crds"), has_spec_generation=True),
        *(KindInfo(model.KIND, model, model.API_VERSION, False, plural)
          for model, plural in ((MutatingWebhookConfiguration, "mutatingwebhookconfigurations"),
                                (ValidatingWebhookConfiguration, "validatingwebhookconfigurations"))),
        KindInfo("ValidatingAdmissionPolicy", ValidatingAdmissionPolicy, ValidatingAdmissionPolicy.API_VERSION, False,
                 "validatingadmissionpolicies", has_spec_generation=True),
        KindInfo("ValidatingAdmissionPolicyBinding", ValidatingAdmissionPolicyBinding,
                 ValidatingAdmissionPolicyBinding.API_VERSION, False, "validatingadmissionpolicybindings",
                 has_spec_generation=True),
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


# The kinds the established CustomResourceDefinitions define, kept by `api/customkinds.py` in each
# process that serves or watches them (from the CRD events it sees); built-in names win.
CUSTOM: dict[str, KindInfo] = {}
_CUSTOM_ALIASES: dict[str, str] = {}


def lookup(name: str) -> KindInfo:
    """A kind by any of its names ('Pod', 'pods', 'po', 'deployments.apps'); NotFound if unknown."""
    lowered = (name or "").lower()
    kind = _ALIASES.get(lowered)
    if kind is not None:
        return KINDS[kind]
    kind = _CUSTOM_ALIASES.get(lowered)
    if kind is None or kind not in CUSTOM:
        raise StatusError("NotFound", f'the server doesn\'t have a resource type "{name}"')
    return CUSTOM[kind]


def known(name: str) -> bool:
    lowered = (name or "").lower()
    return lowered in _ALIASES or _CUSTOM_ALIASES.get(lowered) in CUSTOM


def all_kinds() -> list[KindInfo]:
    """Built-in kinds, then the custom ones served now."""
    return [*KINDS.values(), *CUSTOM.values()]


def serve(info: KindInfo, aliases: tuple[str, ...]) -> None:
    """Serve a custom kind under its names (those a built-in kind holds stay the built-in's)."""
    withdraw(info.kind)
    CUSTOM[info.kind] = info
    for alias in (info.kind, *aliases):
        if alias.lower() not in _ALIASES:
            _CUSTOM_ALIASES[alias.lower()] = info.kind


def withdraw(kind: str) -> None:
    CUSTOM.pop(kind, None)
    for alias in [a for a, k in _CUSTOM_ALIASES.items() if k == kind]:
        del _CUSTOM_ALIASES[alias]


# The reviews a request may ask for, answered by the apiserver and routed by the gateway
REVIEWS = {"SelfSubjectAccessReview": ("authorization.k8s.io", "selfsubjectaccessreviews"),
           "SubjectAccessReview": ("authorization.k8s.io", "subjectaccessreviews"),
           "SelfSubjectReview": ("authentication.k8s.io", "selfsubjectreviews"),
           "TokenReview": ("authentication.k8s.io", "tokenreviews")}
