"""Which webhooks a request meets (Kubernetes' `generic/webhook.go` and `predicates/*`): the
namespaceSelector, then the objectSelector, then the rules; configurations sorted by name, webhooks in
list order. The webhook configurations themselves are never sent to webhooks."""
from __future__ import annotations

from dataclasses import dataclass

from api import selectors

EXEMPT = frozenset(("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                    "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"))


@dataclass(frozen=True)
class Hook:
    """One webhook of one configuration, with its place (for the audit annotations' index)."""

    configuration: str
    index: int
    spec: dict

    @property
    def name(self) -> str:
        return self.spec.get("name") or ""

    @property
    def ignore(self) -> bool:
        return self.spec.get("failurePolicy") == "Ignore"

    @property
    def timeout(self) -> int:
        return self.spec.get("timeoutSeconds") or 10


@dataclass(frozen=True)
class Target:
    """What a rule sees of a request."""

    operation: str
    group: str
    version: str
    resource: str
    subresource: str
    namespaced: bool


def hooks_for(configurations: list[dict], attempt, namespace_labels: dict | None) -> list[Hook]:
    if attempt.kind in EXEMPT:
        return []
    group, _, version = attempt.info.api_version.rpartition("/")
    target = Target(attempt.operation, group, version, attempt.info.plural, attempt.subresource,
                    attempt.info.namespaced)
    found = []
    for config in sorted(configurations, key=lambda c: c["metadata"]["name"]):
        for index, spec in enumerate(config.get("webhooks") or ()):
            if _namespace_matches(spec, attempt, namespace_labels) and _object_matches(spec, attempt) \
                    and any(rule_matches(rule, target) for rule in spec.get("rules") or ()):
                found.append(Hook(config["metadata"]["name"], index, spec))
    return found


def _labels(obj: dict | None) -> dict | None:
    return None if obj is None else ((obj.get("metadata") or {}).get("labels") or {})


def _namespace_matches(spec: dict, attempt, namespace_labels: dict | None) -> bool:
    """Cluster-scoped objects always match, but a Namespace is judged by its own labels."""
    selector = spec.get("namespaceSelector")
    if not selector:
        return True
    if attempt.kind == "Namespace":
        labels = _labels(attempt.obj) if attempt.obj is not None else _labels(attempt.old)
    elif not attempt.info.namespaced:
        return True
    else:
        labels = namespace_labels or {}
    return selectors.from_label_selector(selector).matches(labels)


def _object_matches(spec: dict, attempt) -> bool:
    """The old or the new object matches; a null object never does."""
    selector = spec.get("objectSelector")
    if not selector:
        return True
    parsed = selectors.from_label_selector(selector)
    return any(labels is not None and parsed.matches(labels) for labels in (_labels(attempt.obj),
                                                                            _labels(attempt.old)))


def rule_matches(rule: dict, target: Target) -> bool:
    scope = rule.get("scope") or "*"
    if (scope == "Cluster" and target.namespaced) or (scope == "Namespaced" and not target.namespaced):
        return False
    return (_listed(rule.get("operations"), target.operation) and _listed(rule.get("apiGroups"), target.group)
            and _listed(rule.get("apiVersions"), target.version)
            and any(_resource_matches(r, target.resource, target.subresource) for r in rule.get("resources") or ()))


def _listed(values, value: str) -> bool:
    values = values or ()
    return "*" in values or value in values


def _resource_matches(pattern: str, resource: str, subresource: str) -> bool:
    """`*` is every resource but no subresource, `pods/*` every subresource of pods, `*/scale` every
    scale subresource, `*/*` everything."""
    if pattern == "*/*":
        return True
    want_res, _, want_sub = pattern.partition("/")
    if want_sub != "*" and want_sub != subresource:
        return False
    if want_sub == "*" and not subresource:
        return False
    return want_res in ("*", resource)
