"""`x-kubernetes-validations`: CEL rules on a CRD schema's nodes (apiextensions `apiserver/schema/cel`).
At CRD write every rule compiles with `self` (and `oldSelf`) typed by its node, or the CRD is refused
in Kubernetes' words; on a custom object's create and update each rule runs with `self` the value at
its node and, for a transition rule (one using `oldSelf`), `oldSelf` the old value reached through the
same properties — run only on update where an old value exists, unless `optionalOldSelf`. A failure
is a field error at the node (1.33/1.34 wording: `spec: Invalid value: "object": <message>`)."""
from __future__ import annotations

import re
from typing import Any, Iterator

from api.cel import Budget, CompileError, CostExceeded, EvalError, compile_cel
from api.gojson import go_quote
from api.status import Cause

REASONS = {"FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"}
OLD_SELF = re.compile(r"\boldSelf\b")
RUNTIME_STEPS = 4_000_000  # per object, all rules together


def _rules(node: dict) -> list[dict]:
    rules = node.get("x-kubernetes-validations")
    return [r for r in rules if isinstance(r, dict)] if isinstance(rules, list) else []


def _children(node: dict, path: str) -> Iterator[tuple[dict, str]]:
    for name, child in (node.get("properties") or {}).items():
        if isinstance(child, dict):
            yield child, f"{path}.properties[{name}]"
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield node[key], f"{path}.{key}"


# ---- at CRD write ----------------------------------------------------------------------------
def rule_causes(schema: Any, path: str) -> list[Cause]:
    if not isinstance(schema, dict):
        return []
    causes: list[Cause] = []
    for j, rule in enumerate(_rules(schema)):
        causes += _rule_causes(rule, schema, f"{path}.x-kubernetes-validations[{j}]")
    for child, child_path in _children(schema, path):
        causes += rule_causes(child, child_path)
    return causes


def _shown(rule: dict) -> str:
    """The rule as Go's %#v prints apiextensions.ValidationRule in the field error."""
    reason = f'(*apiextensions.FieldValueErrorReason)("{rule["reason"]}")' if rule.get("reason") else \
        "(*apiextensions.FieldValueErrorReason)(nil)"
    old = f"(*bool)({str(rule['optionalOldSelf']).lower()})" if "optionalOldSelf" in rule else "(*bool)(nil)"
    return (f"apiextensions.ValidationRule{{Rule:{go_quote(rule.get('rule') or '')}, "
            f"Message:{go_quote(rule.get('message') or '')}, "
            f"MessageExpression:{go_quote(rule.get('messageExpression') or '')}, Reason:{reason}, "
            f"FieldPath:{go_quote(rule.get('fieldPath') or '')}, OptionalOldSelf:{old}}}")


def _rule_causes(rule: dict, node: dict, path: str) -> list[Cause]:
    text = rule.get("rule") or ""
    if not text.strip():
        return [Cause(f"{path}.rule", "Required value: rule is not specified", "FieldValueRequired")]
    causes = []
    if "\n" in text and not (rule.get("message") or "").strip():
        causes.append(Cause(f"{path}.message", "Required value: message must be specified if rule contains "
                                               "line breaks", "FieldValueRequired"))
    if rule.get("message") is not None and not rule["message"].strip():
        causes.append(Cause(f"{path}.message", f"Invalid value: {go_quote(rule['message'])}: must be non-empty "
                                               "if specified"))
    if rule.get("reason") is not None and rule["reason"] not in REASONS:
        causes.append(Cause(f"{path}.reason", f"Unsupported value: {go_quote(rule['reason'])}: supported values: "
                            + ", ".join(go_quote(r) for r in sorted(REASONS)), "FieldValueNotSupported"))
    if rule.get("optionalOldSelf") is not None and not OLD_SELF.search(text):
        causes.append(Cause(f"{path}.optionalOldSelf", "Invalid value: true: may not be set if oldSelf is not used "
                                                       "in rule"))
    for field, want, detail in (("rule", "bool", "cel expression must evaluate to a bool"),
                                ("messageExpression", "string", "messageExpression must evaluate to a string")):
        if rule.get(field):
            causes += _compiled(rule, field, node, path, want, detail)
    return causes


def _compiled(rule: dict, field: str, node: dict, path: str, want: str, detail: str) -> list[Cause]:
    try:
        program = compile_cel(rule[field], ("self", "oldSelf"), {"self": node, "oldSelf": node})
    except CompileError as exc:
        return [Cause(f"{path}.{field}", f"Invalid value: {_shown(rule)}: compilation failed: {exc}")]
    if program.result not in (None, want):
        return [Cause(f"{path}.{field}", f"Invalid value: {_shown(rule)}: compilation failed: {detail}")]
    return []


def has_transition(schema: Any) -> bool:
    """Whether any rule uses oldSelf (then an update needs the stored object)."""
    if not isinstance(schema, dict):
        return False
    return any(OLD_SELF.search(r.get("rule") or "") for r in _rules(schema)) or \
        any(has_transition(child) for child, _ in _children(schema, ""))


# ---- on a custom object ----------------------------------------------------------------------
def object_causes(obj: dict, old: dict | None, schema: dict) -> list[Cause]:
    causes: list[Cause] = []
    try:
        _walk(obj, old, schema, "", causes, Budget(steps=RUNTIME_STEPS, seconds=1.0))
    except CostExceeded:
        causes.append(Cause("<nil>", "Invalid value: \"object\": validation failed due to running out of cost "
                                     "budget, no further validation rules will be run"))
    return causes


def _walk(value: Any, old: Any, node: dict, path: str, causes: list[Cause], budget: Budget) -> None:
    if value is None:
        return
    for rule in _rules(node):
        cause = _run(rule, value, old, node, path, budget)
        if cause:
            causes.append(cause)
    properties = node.get("properties") or {}
    if isinstance(value, dict):
        extra = node.get("additionalProperties")
        for key, child in value.items():
            schema = properties.get(key) if key in properties else extra if isinstance(extra, dict) else None
            if isinstance(schema, dict):
                before = old.get(key) if isinstance(old, dict) else None
                _walk(child, before, schema, f"{path}.{key}" if path else key, causes, budget)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            _walk(item, None, node["items"], f"{path}[{i}]", causes, budget)


def _run(rule: dict, value: Any, old: Any, node: dict, path: str, budget: Budget) -> Cause | None:
    transition = bool(OLD_SELF.search(rule["rule"]))
    if transition and old is None and not rule.get("optionalOldSelf"):
        return None
    program = compile_cel(rule["rule"], ("self", "oldSelf"), {"self": node, "oldSelf": node})
    inputs = {"self": value, "oldSelf": old}
    field = path + (rule.get("fieldPath") or "") if path or rule.get("fieldPath") else "<nil>"
    field = field.lstrip(".") or "<nil>"
    try:
        if bool(program.evaluate(inputs, budget)):
            return None
    except EvalError as exc:
        return Cause(field, f"Invalid value: \"{node.get('type', 'object')}\": {exc} evaluating rule: {rule['rule']}")
    return _failure(rule, node, field, _message(rule, inputs, node, budget))


def _message(rule: dict, inputs: dict, node: dict, budget: Budget) -> str:
    if rule.get("message"):
        return rule["message"]
    if rule.get("messageExpression"):
        try:
            text = compile_cel(rule["messageExpression"], ("self", "oldSelf"),
                               {"self": node, "oldSelf": node}).evaluate(inputs, budget)
            if isinstance(text, str) and text.strip() and "\n" not in text:
                return str(text)
        except (CompileError, EvalError):
            pass
    return f"failed rule: {rule['rule']}"


def _failure(rule: dict, node: dict, field: str, message: str) -> Cause:
    reason = rule.get("reason") or "FieldValueInvalid"
    shown = go_quote(node.get("type") or "object")
    text = {"FieldValueForbidden": f"Forbidden: {message}", "FieldValueRequired": f"Required value: {message}",
            "FieldValueDuplicate": f"Duplicate value: {shown}"}.get(reason, f"Invalid value: {shown}: {message}")
    return Cause(field, text, reason)
