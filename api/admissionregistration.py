"""admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfiguration: the models and their
defaults (SetDefaults_* of Kubernetes' admissionregistration/v1 defaults.go). Validation is
`api/webhook_validation.py`; the plugins that call the webhooks live in the apiserver."""
from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from api.meta import K8sModel, LabelSelector, Resource

GROUP = "admissionregistration.k8s.io"
DEFAULT_TIMEOUT_SECONDS = 10
DEFAULT_SERVICE_PORT = 443


class ServiceReference(K8sModel):
    namespace: str | None = None
    name: str | None = None
    path: str | None = None
    port: int | None = None


class WebhookClientConfig(K8sModel):
    url: str | None = None
    service: ServiceReference | None = None
    caBundle: str | None = None  # base64 of PEM certificates


class RuleWithOperations(K8sModel):
    operations: list[str] | None = None
    apiGroups: list[str] | None = None
    apiVersions: list[str] | None = None
    resources: list[str] | None = None
    scope: str | None = None


class MatchCondition(K8sModel):
    name: str | None = None
    expression: str | None = None


class ValidatingWebhook(K8sModel):
    name: str | None = None
    clientConfig: WebhookClientConfig = Field(default_factory=WebhookClientConfig)
    rules: list[RuleWithOperations] | None = None
    failurePolicy: str | None = None
    matchPolicy: str | None = None
    namespaceSelector: LabelSelector | None = None
    objectSelector: LabelSelector | None = None
    sideEffects: str | None = None
    timeoutSeconds: int | None = None
    admissionReviewVersions: list[str] | None = None
    matchConditions: list[MatchCondition] | None = None


class MutatingWebhook(ValidatingWebhook):
    reinvocationPolicy: str | None = None


class ValidatingWebhookConfiguration(Resource):
    API_VERSION: ClassVar[str] = f"{GROUP}/v1"
    KIND: ClassVar[str] = "ValidatingWebhookConfiguration"

    webhooks: list[ValidatingWebhook] | None = None


class MutatingWebhookConfiguration(Resource):
    API_VERSION: ClassVar[str] = f"{GROUP}/v1"
    KIND: ClassVar[str] = "MutatingWebhookConfiguration"

    webhooks: list[MutatingWebhook] | None = None


def _webhook_defaults(webhook: dict) -> None:
    """SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook (sideEffects and
    admissionReviewVersions have no default in v1: they are required)."""
    webhook.setdefault("failurePolicy", "Fail")
    webhook.setdefault("matchPolicy", "Equivalent")
    webhook.setdefault("namespaceSelector", {})
    webhook.setdefault("objectSelector", {})
    webhook.setdefault("timeoutSeconds", DEFAULT_TIMEOUT_SECONDS)
    for rule in webhook.get("rules") or ():
        rule.setdefault("scope", "*")
    service = (webhook.get("clientConfig") or {}).get("service")
    if isinstance(service, dict):
        service.setdefault("port", DEFAULT_SERVICE_PORT)


def validating_defaults(obj: dict) -> None:
    for webhook in obj.get("webhooks") or ():
        _webhook_defaults(webhook)


def mutating_defaults(obj: dict) -> None:
    for webhook in obj.get("webhooks") or ():
        _webhook_defaults(webhook)
        webhook.setdefault("reinvocationPolicy", "Never")
