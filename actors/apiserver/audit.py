"""The audit policy: which requests are recorded at which level and stages (an `audit.k8s.io/v1`
Policy, matched as kube-apiserver's `pkg/audit/policy/checker.go` does), and the `audit.k8s.io/v1`
Event of one stage of a request. Pure; `auditlog.py` writes the events."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from actors.apiserver.authz.rules import Attributes, UserInfo
from api.managedfields import raw
from api.registry import known, lookup
from api.times import micro_time

DEFAULT_POLICY = Path(__file__).resolve().parents[2] / "config" / "audit-policy.yaml"
Level = Literal["None", "Metadata", "Request", "RequestResponse"]
Stage = Literal["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"]
LEVELS = ("None", "Metadata", "Request", "RequestResponse")  # in order: each adds to the one before


# ---- the policy -----------------------------------------------------------------------------------
class _Strict(BaseModel):
    """A typo in a policy file must be loud, not a rule that silently matches everything."""
    model_config = ConfigDict(extra="forbid", frozen=True)


class GroupResources(_Strict):
    group: str = ""  # the core group is ""
    resources: list[str] = Field(default_factory=list)
    resourceNames: list[str] = Field(default_factory=list)


class PolicyRule(_Strict):
    level: Level
    users: list[str] = Field(default_factory=list)
    userGroups: list[str] = Field(default_factory=list)
    verbs: list[str] = Field(default_factory=list)
    resources: list[GroupResources] = Field(default_factory=list)
    namespaces: list[str] = Field(default_factory=list)
    nonResourceURLs: list[str] = Field(default_factory=list)
    omitStages: list[Stage] = Field(default_factory=list)
    omitManagedFields: bool | None = None

    @model_validator(mode="after")
    def _one_kind_of_request(self) -> "PolicyRule":
        if self.nonResourceURLs and (self.resources or self.namespaces):
            raise ValueError("rules cannot apply to both regular resources and non-resource URLs")
        return self


class Policy(_Strict):
    apiVersion: Literal["audit.k8s.io/v1"] = "audit.k8s.io/v1"
    kind: Literal["Policy"] = "Policy"
    metadata: dict[str, Any] = Field(default_factory=dict)
    rules: list[PolicyRule] = Field(default_factory=list)
    omitStages: list[Stage] = Field(default_factory=list)
    omitManagedFields: bool = False


def load_policy(path: str | Path = DEFAULT_POLICY) -> Policy:
    """A Policy from a YAML file; raises (pydantic's ValidationError) on anything Kubernetes would refuse."""
    return Policy.model_validate(yaml.safe_load(Path(path).read_text()) or {})


def rule_for(policy: Policy, attrs: Attributes) -> PolicyRule | None:
    """The first rule that matches, or None."""
    return next((rule for rule in policy.rules if _rule_matches(rule, attrs)), None)


def level_for(policy: Policy, user: str, groups, verb: str, api_group: str, resource: str, subresource: str,
              namespace: str | None, name: str | None, path: str = "") -> str:
    """The level of the first matching rule; `None` when no rule matches."""
    rule = rule_for(policy, Attributes(UserInfo(user, tuple(groups or ())), verb, resource or "", api_group or "",
                                       subresource or "", namespace or "", name or "", path))
    return rule.level if rule else "None"


def omitted_stages(policy: Policy, rule: PolicyRule | None) -> set[str]:
    return set(policy.omitStages) | set(rule.omitStages if rule else ())


def _rule_matches(rule: PolicyRule, a: Attributes) -> bool:
    """Every field the rule lists must match; namespaces and resources only match resource requests,
    nonResourceURLs only the others."""
    if rule.users and a.user.name not in rule.users:
        return False
    if rule.userGroups and not set(a.user.groups) & set(rule.userGroups):
        return False
    if rule.verbs and a.verb not in rule.verbs:
        return False
    if rule.namespaces or rule.resources:
        return bool(a.resource) and _matches_resource(rule, a)
    if rule.nonResourceURLs:
        return not a.resource and any(_path_matches(a.path, spec) for spec in rule.nonResourceURLs)
    return True


def _matches_resource(rule: PolicyRule, a: Attributes) -> bool:
    if rule.namespaces and a.namespace not in rule.namespaces:  # cluster-scoped objects have namespace ""
        return False
    if not rule.resources:
        return True
    return any(_group_matches(gr, a) for gr in rule.resources if gr.group == a.api_group)


def _group_matches(gr: GroupResources, a: Attributes) -> bool:
    if not gr.resources:
        return True
    if gr.resourceNames and a.name not in gr.resourceNames:
        return False
    combined = f"{a.resource}/{a.subresource}" if a.subresource else a.resource
    return any(res in (combined, "*")
               or (a.subresource and res.startswith("*/") and res[2:] == a.subresource)
               or (res.endswith("/*") and res[:-2] == a.resource)
               for res in gr.resources)


def _path_matches(path: str, spec: str) -> bool:
    return spec in ("*", path) or (spec.endswith("*") and path.startswith(spec[:-1]))


def _api_version(attrs: Attributes) -> str:
    if known(attrs.resource):
        return lookup(attrs.resource).api_version
    return "v1" if not attrs.api_group else f"{attrs.api_group}/v1"


def request_uri(attrs: Attributes) -> str:
    """A Kubernetes-style URI: `/api/v1/namespaces/team-a/pods/web`, `/apis/apps/v1/deployments?watch=true`.
    A create names its collection, as a POST does."""
    if not attrs.resource:
        return attrs.path or "/"
    version = _api_version(attrs)
    parts = ["/api/v1" if version == "v1" else f"/apis/{version}"]
    if attrs.namespace and attrs.resource != "namespaces":
        parts += ["namespaces", attrs.namespace]
    parts.append(attrs.resource)
    if attrs.name and (attrs.verb != "create" or attrs.subresource):
        parts.append(attrs.name)
    if attrs.subresource:
        parts.append(attrs.subresource)
    return "/".join(parts) + ("?watch=true" if attrs.verb == "watch" else "")


# ---- the event ----------------------------------------------------------------------------------
def response_status(code: int, reason: str | None = None, message: str | None = None) -> dict:
    """metav1.Status as the audit log shows it: a bare code on success, Failure with reason and message."""
    status = {"metadata": {}, "code": code, "status": "Failure" if code >= 400 else None, "reason": reason,
              "message": message}
    return {k: v for k, v in status.items() if v is not None and v != ""}


def success_code(verb: str) -> int:
    """What an answered request's status code is when it succeeded: 201 Created for a create (a
    binding, a review), else 200."""
    return 201 if verb == "create" else 200


def object_ref(attrs: Attributes) -> dict | None:
    if not attrs.resource:
        return None
    ref = {"resource": attrs.resource, "namespace": attrs.namespace, "name": attrs.name,
           "apiGroup": attrs.api_group, "apiVersion": _api_version(attrs).split("/")[-1],
           "subresource": attrs.subresource}
    return {k: v for k, v in ref.items() if v}  # omitempty, as Kubernetes writes it


def _without_managed_fields(obj: Any) -> Any:
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return obj
    return {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k != "managedFields"}}


def user_info(user: UserInfo) -> dict:
    """authentication/v1 UserInfo, empty fields left out as Kubernetes writes it."""
    info = {"username": user.name, "uid": user.uid, "groups": list(user.groups), "extra": user.extra_dict()}
    return {k: v for k, v in info.items() if v or k in ("username", "groups")}


def audit_event(level: str, attrs: Attributes, stage: str, *, audit_id: str, user_agent: str,
                status: dict | None, received: float, stamped: float, annotations: dict[str, str],
                request_object: Any = None, response_object: Any = None, omit_managed_fields: bool = False,
                impersonated: UserInfo | None = None) -> dict:
    """One `audit.k8s.io/v1` Event at `stage`, bodies as the level allows. As kube-apiserver's, a
    RequestReceived event carries neither bodies nor a status: it is written before either is known."""
    event: dict[str, Any] = {
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": level, "auditID": audit_id, "stage": stage,
        "requestURI": request_uri(attrs), "verb": attrs.verb,
        "user": user_info(attrs.user), "sourceIPs": [], "userAgent": user_agent}
    if impersonated is not None:
        event["impersonatedUser"] = user_info(impersonated)
    ref = object_ref(attrs)
    if ref:
        event["objectRef"] = ref
    if status is not None:
        event["responseStatus"] = status
    trim = _without_managed_fields if omit_managed_fields else raw.expanded  # fieldsV1 as Kubernetes logs it
    bodies = stage != "RequestReceived" and bool(attrs.resource)
    if bodies and LEVELS.index(level) >= LEVELS.index("Request") and request_object is not None:
        event["requestObject"] = trim(request_object)
    if bodies and level == "RequestResponse" and response_object is not None:
        event["responseObject"] = trim(response_object)
    event["requestReceivedTimestamp"] = micro_time(received)
    event["stageTimestamp"] = micro_time(stamped)
    if annotations:
        event["annotations"] = dict(annotations)
    return event
