"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1):
the models and their defaults (the v1 type docs: failurePolicy Fail; matchPolicy Equivalent; empty
namespace and object selectors; a rule's scope `*`). Validation is `admissionpolicy_validation.py`;
the plugin that enforces them is the apiserver's `admission/policy.py`."""
from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from api.meta import Condition, K8sModel, LabelSelector, Resource

GROUP = "admissionregistration.k8s.io"
API_VERSION = f"{GROUP}/v1"


class NamedRuleWithOperations(K8sModel):
    resourceNames: list[str] | None = None
    operations: list[str] | None = None
    apiGroups: list[str] | None = None
    apiVersions: list[str] | None = None
    resources: list[str] | None = None
    scope: str | None = None


class MatchResources(K8sModel):
    namespaceSelector: LabelSelector | None = None
    objectSelector: LabelSelector | None = None
    resourceRules: list[NamedRuleWithOperations] | None = None
    excludeResourceRules: list[NamedRuleWithOperations] | None = None
    matchPolicy: str | None = None


class Validation(K8sModel):
    expression: str | None = None
    message: str | None = None
    reason: str | None = None
    messageExpression: str | None = None


class NamedExpression(K8sModel):
    name: str | None = None
    expression: str | None = None


class AuditAnnotation(K8sModel):
    key: str | None = None
    valueExpression: str | None = None


class ParamKind(K8sModel):
    apiVersion: str | None = None
    kind: str | None = None


class ValidatingAdmissionPolicySpec(K8sModel):
    paramKind: ParamKind | None = None
    matchConstraints: MatchResources | None = None
    validations: list[Validation] | None = None
    failurePolicy: str | None = None
    auditAnnotations: list[AuditAnnotation] | None = None
    matchConditions: list[NamedExpression] | None = None
    variables: list[NamedExpression] | None = None


class ValidatingAdmissionPolicyStatus(K8sModel):
    observedGeneration: int | None = None
    typeChecking: dict[str, Any] | None = None
    conditions: list[Condition] | None = None


class ValidatingAdmissionPolicy(Resource):
    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "ValidatingAdmissionPolicy"

    spec: ValidatingAdmissionPolicySpec = Field(default_factory=ValidatingAdmissionPolicySpec)
    status: ValidatingAdmissionPolicyStatus | None = None


class ParamRef(K8sModel):
    name: str | None = None
    namespace: str | None = None
    selector: LabelSelector | None = None
    parameterNotFoundAction: str | None = None


class ValidatingAdmissionPolicyBindingSpec(K8sModel):
    policyName: str | None = None
    paramRef: ParamRef | None = None
    matchResources: MatchResources | None = None
    validationActions: list[str] | None = None


class ValidatingAdmissionPolicyBinding(Resource):
    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "ValidatingAdmissionPolicyBinding"

    spec: ValidatingAdmissionPolicyBindingSpec = Field(default_factory=ValidatingAdmissionPolicyBindingSpec)


def _match_defaults(match: dict | None) -> None:
    if not isinstance(match, dict):
        return
    match.setdefault("namespaceSelector", {})
    match.setdefault("objectSelector", {})
    match.setdefault("matchPolicy", "Equivalent")
    for rule in (match.get("resourceRules") or []) + (match.get("excludeResourceRules") or []):
        if isinstance(rule, dict):
            rule.setdefault("scope", "*")


def policy_defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("failurePolicy", "Fail")
    _match_defaults(spec.get("matchConstraints"))


def binding_defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    _match_defaults(spec.get("matchResources"))
