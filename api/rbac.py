"""Role, ClusterRole, RoleBinding, ClusterRoleBinding (rbac.authorization.k8s.io/v1)."""
from __future__ import annotations

from api.meta import K8sModel, LabelSelector, Resource

RBAC_VERSION = "rbac.authorization.k8s.io/v1"


class PolicyRule(K8sModel):
    verbs: list[str] | None = None
    apiGroups: list[str] | None = None
    resources: list[str] | None = None
    resourceNames: list[str] | None = None
    nonResourceURLs: list[str] | None = None


class AggregationRule(K8sModel):
    clusterRoleSelectors: list[LabelSelector] | None = None


class Subject(K8sModel):
    kind: str
    name: str
    apiGroup: str | None = None
    namespace: str | None = None


class RoleRef(K8sModel):
    apiGroup: str
    kind: str
    name: str


class Role(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "Role"
    rules: list[PolicyRule] | None = None


class ClusterRole(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "ClusterRole"
    rules: list[PolicyRule] | None = None
    aggregationRule: AggregationRule | None = None


class RoleBinding(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "RoleBinding"
    subjects: list[Subject] | None = None
    roleRef: RoleRef


class ClusterRoleBinding(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "ClusterRoleBinding"
    subjects: list[Subject] | None = None
    roleRef: RoleRef


def validate_role(obj: dict) -> list:
    return []


def validate_cluster_role(obj: dict) -> list:
    return []


def validate_role_binding(obj: dict) -> list:
    return []


def validate_cluster_role_binding(obj: dict) -> list:
    return []
