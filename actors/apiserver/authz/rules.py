"""What an authorizer sees and says (apiserver `authorizer.Attributes`, `Decision`), and whether a
PolicyRule allows a request (rbac/v1 `evaluation_helpers.go`, `rbac.go` RuleAllows)."""
from __future__ import annotations

from dataclasses import dataclass


# ---- what an authorizer sees and says (apiserver `authorizer.Attributes`, `Decision`) ------------

@dataclass(frozen=True)
class UserInfo:
    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (key, values), sorted by key: hashable

    def extra_dict(self) -> dict[str, list[str]]:
        return {key: list(values) for key, values in self.extra}


@dataclass(frozen=True)
class Attributes:
    """One request as the authorizers see it. `path` is set only for non-resource requests;
    `field_selector` is the request's field selector (the node authorizer reads `spec.nodeName=`)."""

    user: UserInfo
    verb: str
    resource: str = ""
    api_group: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    field_selector: str = ""

    @property
    def resource_request(self) -> bool:
        return bool(self.resource) or not self.path

    @property
    def combined_resource(self) -> str:
        """`pods/status`: what RBAC rules and messages call the resource."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


@dataclass(frozen=True)
class Decision:
    """Allow, or no opinion (RBAC never denies). `node_guard` names the node a pod command must be
    bound to: the node authorizer cannot see the pod, so the store checks it."""

    allowed: bool
    reason: str = ""
    node_guard: str | None = None


# ---- does a rule allow a request (rbac/v1 `evaluation_helpers.go`, `rbac.go` RuleAllows) ----------

def verb_matches(rule: dict, verb: str) -> bool:
    verbs = rule.get("verbs") or ()
    return "*" in verbs or verb in verbs


def api_group_matches(rule: dict, group: str) -> bool:
    groups = rule.get("apiGroups") or ()
    return "*" in groups or group in groups


def resource_matches(rule: dict, combined: str, subresource: str) -> bool:
    """`*`, the exact `resource/subresource`, or `*/<subresource>`: a rule for `pods` does not cover
    `pods/status`."""
    for resource in rule.get("resources") or ():
        if resource in ("*", combined):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def resource_name_matches(rule: dict, name: str) -> bool:
    listed = rule.get("resourceNames") or ()
    return not listed or name in listed


def non_resource_url_matches(rule: dict, path: str) -> bool:
    for url in rule.get("nonResourceURLs") or ():
        if url in ("*", path) or (url.endswith("*") and path.startswith(url.rstrip("*"))):
            return True
    return False


def rule_allows(attrs: Attributes, rule: dict) -> bool:
    if not verb_matches(rule, attrs.verb):
        return False
    if not attrs.resource_request:
        return non_resource_url_matches(rule, attrs.path)
    return (api_group_matches(rule, attrs.api_group)
            and resource_matches(rule, attrs.combined_resource, attrs.subresource)
            and resource_name_matches(rule, attrs.name))


def rules_allow(attrs: Attributes, rules: list[dict]) -> bool:
    return any(rule_allows(attrs, rule) for rule in rules)


def new_rule(verbs: str, groups: tuple[str, ...] = (), resources: str = "", names: str = "", urls: str = "") -> dict:
    """A PolicyRule from space-separated words, lists sorted as Kubernetes' `NewRule().RuleOrDie()` sorts them."""
    fields = {"verbs": verbs.split(), "apiGroups": list(groups), "resources": resources.split(),
              "resourceNames": names.split(), "nonResourceURLs": urls.split()}
    return {key: sorted(value) for key, value in fields.items() if value}
