"""ValidatingAdmissionPolicy, the admission plugin (apiserver `admission/plugin/policy/validating`):
each binding (by name) whose policy exists, and whose match and its policy's take the write, is
evaluated, once per param object; a failure acts as the binding's validationActions say — Deny
refuses the write (the first denial wins), Warn adds a Warning header, Audit an audit annotation.
Policies, bindings and params are read from the apiserver's policy cache. Params come from the kinds
that cache holds (ConfigMaps among them); a custom kind as paramKind is not served yet."""
from __future__ import annotations

import json

from actors.apiserver.admission.authorizer import cel_authorizer
from actors.apiserver.admission.policy.evaluation import evaluate
from actors.apiserver.admission.policy.matching import Request, matches
from api.errors import admission_forbidden
from api.managedfields import raw
from api.registry import known, lookup
from api.selectors import from_label_selector
from api.status import Cause, StatusError

EXEMPT = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration",
          "MutatingWebhookConfiguration", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}
AUDIT_KEY = "validation.policy.admission.k8s.io/validation_failure"


class ValidatingAdmissionPolicy:
    name = "ValidatingAdmissionPolicy"

    def validate(self, a) -> None:
        if a.kind in EXEMPT:
            return
        bindings = a.cache.list("ValidatingAdmissionPolicyBinding")
        if not bindings:
            return
        req, audits = _request(a), []
        for binding in sorted(bindings, key=lambda b: b["metadata"]["name"]):
            policy = a.cache.get("ValidatingAdmissionPolicy", None, binding["spec"].get("policyName") or "")
            if policy is None or not matches(policy["spec"].get("matchConstraints"), req) or \
                    not matches(binding["spec"].get("matchResources"), req, rules_required=False):
                continue
            _enforce(a, policy, binding, audits)
        if audits:
            a.annotations[AUDIT_KEY] = json.dumps(audits, separators=(",", ":"))


def _enforce(a, policy: dict, binding: dict, audits: list) -> None:
    names = (policy["metadata"]["name"], binding["metadata"]["name"])
    actions = binding["spec"].get("validationActions") or []
    for params in _params(a, policy, binding):
        if isinstance(params, str):  # a misconfiguration, judged by failurePolicy
            if policy["spec"].get("failurePolicy", "Fail") == "Fail":
                _act(a, names, actions, params, "Invalid", 0, audits)
            continue
        outcome = evaluate(policy, _inputs(a, params))
        a.annotations.update(outcome.annotations)
        for failure in outcome.failures:
            _act(a, names, actions, failure.message, failure.reason, failure.index, audits)


def _act(a, names: tuple[str, str], actions: list[str], message: str, reason: str, index: int, audits: list) -> None:
    policy, binding = names
    if "Audit" in actions:
        audits.append({"message": message, "policy": policy, "binding": binding, "expressionIndex": index,
                       "validationActions": actions})
    if "Warn" in actions:
        a.warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{policy}' with binding '{binding}': "
                          f"{message}")
    if "Deny" in actions:
        raise _denied(a, f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {message}",
                      reason)


def _denied(a, why: str, reason: str) -> StatusError:
    """admission.NewForbidden with the validation's reason (Invalid unless given) and the message as a
    cause, as the dispatcher builds it: kubectl prints `The deployments "x" is invalid: : <why>`."""
    message = admission_forbidden(a.kind, a.obj or a.old, why).message
    name = ((a.obj or a.old or {}).get("metadata") or {}).get("name") or a.name
    details = {"name": name, **({"group": a.info.group} if a.info.group else {}), "kind": a.info.plural}
    return StatusError(reason if reason in ("Unauthorized", "Forbidden", "RequestEntityTooLarge") else "Invalid",
                       message, [Cause("", why, "")], details)


def _params(a, policy: dict, binding: dict) -> list:
    """The param objects to evaluate with ([None] without a paramKind), or a misconfiguration's words."""
    kind = policy["spec"].get("paramKind")
    if not kind:
        return [None]
    ref = binding["spec"].get("paramRef")
    if not ref:
        return ["failed to configure binding: paramRef is required when paramKind is set"]
    if not known(kind.get("kind") or ""):
        return [f"failed to configure policy: failed to find resource referenced by paramKind: "
                f"'{kind.get('apiVersion')}, Kind={kind.get('kind')}'"]
    info = lookup(kind["kind"])
    namespace = (ref.get("namespace") or a.namespace) if info.namespaced else None
    if ref.get("name"):
        found = a.cache.get(info.kind, namespace, ref["name"])
        objects = [found] if found is not None else []
    else:
        chosen = from_label_selector(ref.get("selector") or {})
        objects = [o for o in a.cache.list(info.kind, namespace)
                   if chosen.matches(o["metadata"].get("labels") or {})]
    if objects:
        return objects
    if ref.get("parameterNotFoundAction") == "Allow":
        return []
    return ["failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"]


def _request(a) -> Request:
    group, _, version = a.info.api_version.rpartition("/")
    namespace = a.cache.get("Namespace", None, a.namespace) if a.namespace else None
    return Request(a.operation, group, version, a.info.plural, a.subresource, a.info.namespaced, a.kind, a.name,
                   _labels(a.obj), _labels(a.old), ((namespace or {}).get("metadata") or {}).get("labels") or {})


def _labels(obj: dict | None) -> dict | None:
    return None if obj is None else (obj.get("metadata") or {}).get("labels") or {}


def _inputs(a, params: dict | None) -> dict:
    group, _, version = a.info.api_version.rpartition("/")
    kind = {"group": group, "version": version, "kind": a.kind}
    resource = {"group": group, "version": version, "resource": a.info.plural}
    namespace = a.cache.get("Namespace", None, a.namespace) if a.namespace else None
    request = {"kind": kind, "resource": resource, "subResource": a.subresource, "requestKind": kind,
               "requestResource": resource, "requestSubResource": a.subresource, "name": a.name,
               "namespace": a.namespace, "operation": a.operation, "dryRun": False,
               "userInfo": {"username": a.user.name, "uid": a.user.uid, "groups": list(a.user.groups),
                            "extra": a.user.extra_dict()}}
    obj, old = (raw.expanded(a.obj) if a.operation != "DELETE" else None), raw.expanded(a.old)  # as clients see them
    return {"object": obj, "oldObject": old, "request": request,
            "namespaceObject": namespace, "params": params, "authorizer": cel_authorizer(a)}
