"""ValidatingAdmissionPolicy(Binding) validation with Kubernetes' messages
(`pkg/apis/admissionregistration/validation`): required parts, supported values, and every CEL
expression compiled at create, refused as `compilation failed: ERROR: <input>:L:C: …`. Also the CEL
environments the plugin compiles in (`POLICY_VARIABLES` & co.), so the write and the check agree."""
from __future__ import annotations

import re

from api.cel import CompileError, compile_cel
from api.gojson import go_quote
from api.names import qualified_name_errors
from api.service_validation import duplicate, forbidden, invalid, required, unsupported
from api.status import Cause

BASE = ("object", "oldObject", "request", "namespaceObject", "authorizer")
FAILURE_POLICIES = ("Fail", "Ignore")
MATCH_POLICIES = ("Exact", "Equivalent")
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SCOPES = ("*", "Cluster", "Namespaced")
REASONS = ("Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge")
ACTIONS = ("Audit", "Deny", "Warn")
NOT_FOUND_ACTIONS = ("Allow", "Deny")
CEL_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")


def environment(spec: dict, *, variables: bool = True) -> tuple[str, ...]:
    """The names a policy's expressions see: `params` only with a paramKind, `variables` except in
    matchConditions; a messageExpression sees all but `authorizer` (`message_environment`)."""
    return BASE + (("params",) if spec.get("paramKind") else ()) + (("variables",) if variables else ())


def message_environment(names: tuple[str, ...]) -> tuple[str, ...]:
    """Kubernetes compiles messageExpression without the authorizer: `undeclared reference to 'authorizer'`."""
    return tuple(n for n in names if n != "authorizer")


def compiled(expression: str, names: tuple[str, ...], path: str, want: str | None = None) -> list[Cause]:
    try:
        program = compile_cel(expression, names)
    except CompileError as exc:
        return [invalid(path, expression, f"compilation failed: {exc}")]
    if want and program.result not in (None, want):
        detail = "cel expression must evaluate to a bool" if want == "bool" else \
            "messageExpression must evaluate to a string"
        return [invalid(path, expression, f"compilation failed: {detail}")]
    return []


def validate_policy(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = _policy_shape(spec)
    names = environment(spec)
    for i, v in enumerate(spec.get("validations") or []):
        causes += _validation(v, f"spec.validations[{i}]", names)
    for i, cond in enumerate(spec.get("matchConditions") or []):
        causes += _named(cond, f"spec.matchConditions[{i}]", environment(spec, variables=False), "bool", qualified=True)
    for i, var in enumerate(spec.get("variables") or []):
        causes += _named(var, f"spec.variables[{i}]", names, None)
    for i, note in enumerate(spec.get("auditAnnotations") or []):
        causes += _audit(note, f"spec.auditAnnotations[{i}]", names, obj["metadata"].get("name") or "")
    return causes


def _policy_shape(spec: dict) -> list[Cause]:
    causes = []
    policy = spec.get("failurePolicy")
    if policy not in FAILURE_POLICIES:
        causes.append(unsupported("spec.failurePolicy", policy, FAILURE_POLICIES))
    match = spec.get("matchConstraints")
    if not match:
        causes.append(required("spec.matchConstraints"))
    else:
        causes += _match(match, "spec.matchConstraints", rules_required=True)
    if not spec.get("validations") and not spec.get("auditAnnotations"):
        causes.append(Cause("spec.validations", "Required value: validations or auditAnnotations must contain at "
                                                "least one item", "FieldValueRequired"))
    kind = spec.get("paramKind")
    if isinstance(kind, dict):
        causes += [required(f"spec.paramKind.{f}") for f in ("apiVersion", "kind") if not kind.get(f)]
    return causes


def _match(match: dict, path: str, rules_required: bool = False) -> list[Cause]:
    causes = []
    if match.get("matchPolicy") not in MATCH_POLICIES:
        causes.append(unsupported(f"{path}.matchPolicy", match.get("matchPolicy"), MATCH_POLICIES))
    if rules_required and not match.get("resourceRules"):
        causes.append(required(f"{path}.resourceRules"))
    for field in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(match.get(field) or []):
            causes += _rule(rule, f"{path}.{field}[{i}]")
    return causes


def _rule(rule: dict, path: str) -> list[Cause]:
    causes = []
    for field in ("operations", "apiGroups", "apiVersions", "resources"):
        if not rule.get(field):
            causes.append(required(f"{path}.{field}"))
    for j, op in enumerate(rule.get("operations") or []):
        if op not in OPERATIONS:
            causes.append(unsupported(f"{path}.operations[{j}]", op, OPERATIONS))
    if rule.get("scope") not in SCOPES:
        causes.append(unsupported(f"{path}.scope", rule.get("scope"), SCOPES))
    return causes


def _validation(v: dict, path: str, names: tuple[str, ...]) -> list[Cause]:
    expression = (v.get("expression") or "").strip()
    causes = compiled(expression, names, f"{path}.expression", "bool") if expression else \
        [Cause(f"{path}.expression", "Required value: expression is not specified", "FieldValueRequired")]
    message = v.get("message")
    if message is not None and not message.strip():
        causes.append(Cause(f"{path}.message", f"Invalid value: {go_quote(message)}: message must be non-empty "
                                               "if specified"))
    elif message and "\n" in message:
        causes.append(Cause(f"{path}.message", f"Invalid value: {go_quote(message)}: message must not contain "
                                               "line breaks"))
    if v.get("reason") is not None and v["reason"] not in REASONS:
        causes.append(unsupported(f"{path}.reason", v["reason"], REASONS))
    if v.get("messageExpression"):
        causes += compiled(v["messageExpression"], message_environment(names),
                           f"{path}.messageExpression", "string")
    return causes


def _named(item: dict, path: str, names: tuple[str, ...], want: str | None, qualified: bool = False) -> list[Cause]:
    name = item.get("name") or ""
    causes = []
    if not name:
        causes.append(required(f"{path}.name"))
    elif qualified:
        causes += [invalid(f"{path}.name", name, e) for e in qualified_name_errors(name)]
    elif not CEL_IDENTIFIER.match(name):
        causes.append(invalid(f"{path}.name", name, "name is not a valid CEL identifier"))
    expression = item.get("expression") or ""
    causes += compiled(expression, names, f"{path}.expression", want) if expression else \
        [required(f"{path}.expression")]
    return causes


def _audit(note: dict, path: str, names: tuple[str, ...], policy: str) -> list[Cause]:
    key = note.get("key") or ""
    causes = [required(f"{path}.key")] if not key else \
        [invalid(f"{path}.key", key, e) for e in qualified_name_errors(f"{policy}/{key}")]
    expression = note.get("valueExpression") or ""
    causes += compiled(expression, names, f"{path}.valueExpression") if expression else \
        [required(f"{path}.valueExpression")]
    return causes


def validate_binding(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = [] if spec.get("policyName") else [required("spec.policyName")]
    actions = spec.get("validationActions") or []
    if not actions:
        causes.append(Cause("spec.validationActions", "Required value: at least one validation action is required",
                            "FieldValueRequired"))
    for i, action in enumerate(actions):
        if action not in ACTIONS:
            causes.append(unsupported(f"spec.validationActions[{i}]", action, ACTIONS))
        elif action in actions[:i]:
            causes.append(duplicate(f"spec.validationActions[{i}]", action))
    if "Deny" in actions and "Warn" in actions:
        causes.append(invalid("spec.validationActions", actions, "must not contain both Deny and Warn (repeating the "
                              "same validation failure information in the API response and headers serves no "
                              "purpose)"))
    if spec.get("matchResources"):
        causes += _match(spec["matchResources"], "spec.matchResources")
    return causes + _param_ref(spec.get("paramRef"))


def _param_ref(ref) -> list[Cause]:
    if not isinstance(ref, dict):
        return []
    causes = []
    if ref.get("name") and ref.get("selector") is not None:
        causes.append(forbidden("spec.paramRef.name", "name and selector are mutually exclusive"))
    elif not ref.get("name") and ref.get("selector") is None:
        causes.append(Cause("spec.paramRef", "Required value: one of name or selector must be specified",
                            "FieldValueRequired"))
    action = ref.get("parameterNotFoundAction")
    if action is None:
        causes.append(required("spec.paramRef.parameterNotFoundAction"))
    elif action not in NOT_FOUND_ACTIONS:
        causes.append(unsupported("spec.paramRef.parameterNotFoundAction", action, NOT_FOUND_ACTIONS))
    return causes
