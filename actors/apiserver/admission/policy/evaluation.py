"""One binding's evaluation of its policy against one write (apiserver `policy/validating/validator.go`):
matchConditions (a false one skips), then variables (in order, each seeing the earlier ones), then
validations and auditAnnotations, all under one budget. An expression's error is a failure under
failurePolicy Fail and nothing under Ignore. Pure: the caller hands over the CEL inputs."""
from __future__ import annotations

from dataclasses import dataclass, field

from celpy import celtypes

from api.admissionpolicy_validation import environment, message_environment
from api.cel import Budget, CompileError, CostExceeded, EvalError, compile_cel

MAX_MESSAGE = 5 * 1024
MAX_ANNOTATION = 10 * 1024


@dataclass(frozen=True)
class Failure:
    message: str
    reason: str
    index: int


@dataclass
class Outcome:
    failures: list[Failure] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)


def evaluate(policy: dict, inputs: dict) -> Outcome:
    """`inputs`: object, oldObject, request, namespaceObject, params (JSON-shaped), authorizer (api.cel.authz)."""
    spec, outcome, budget = policy["spec"], Outcome(), Budget(steps=2_000_000, seconds=1.0)
    fail = spec.get("failurePolicy", "Fail") == "Fail"
    names = environment(spec)
    inputs = {k: v for k, v in inputs.items() if k in names}
    try:
        if not _conditions_hold(spec, inputs, budget):
            return outcome
        inputs["variables"] = _variables(spec, inputs, names, budget)
        for i, check in enumerate(spec.get("validations") or []):
            failure, errored = _validation(check, i, inputs, names, budget)
            if failure and (fail or not errored):
                outcome.failures.append(failure)
        _audit(spec, policy["metadata"]["name"], inputs, names, budget, outcome)
    except _Broken as exc:
        if fail:
            outcome.failures.append(Failure(str(exc), "Invalid", 0))
    return outcome


class _Broken(Exception):
    """A matchCondition that cannot be evaluated, or the budget spent: the whole binding fails."""


def _run(expression: str, names: tuple[str, ...], inputs: dict, budget: Budget):
    return compile_cel(expression, names).evaluate(inputs, budget)


def _holds(expression: str, names: tuple[str, ...], inputs: dict, budget: Budget) -> bool:
    """A condition's truth; a result that is not a bool (a dyn the checker let through) is an error."""
    value = _run(expression, names, inputs, budget)
    if not isinstance(value, celtypes.BoolType):
        raise EvalError(f"no such overload: a {type(value).__name__} is not a bool")
    return bool(value)


def _conditions_hold(spec: dict, inputs: dict, budget: Budget) -> bool:
    names = environment(spec, variables=False)
    for cond in spec.get("matchConditions") or []:
        try:
            if not _holds(cond["expression"], names, inputs, budget):
                return False
        except (CompileError, EvalError, CostExceeded) as exc:
            raise _Broken(f"failed to evaluate matchCondition '{cond.get('name')}': {exc}") from None
    return True


def _variables(spec: dict, inputs: dict, names: tuple[str, ...], budget: Budget) -> celtypes.MapType:
    """Evaluated in order (Kubernetes evaluates them lazily; a failing one is left out here, so an
    expression using it fails with `no such key`)."""
    bound = celtypes.MapType()
    for var in spec.get("variables") or []:
        try:
            bound[celtypes.StringType(var["name"])] = _run(var["expression"], names, {**inputs, "variables": bound},
                                                          budget)
        except (CompileError, EvalError):
            continue
        except CostExceeded as exc:
            raise _Broken(str(exc)) from None
    return bound


def _validation(check: dict, index: int, inputs: dict, names: tuple[str, ...],
                budget: Budget) -> tuple[Failure | None, bool]:
    """The failure, if any, and whether it is an error (which failurePolicy Ignore forgives)."""
    expression = check["expression"]
    try:
        if _holds(expression, names, inputs, budget):
            return None, False
    except (CompileError, EvalError) as exc:
        return Failure(f"expression '{expression}' resulted in error: {exc}", "Invalid", index), True
    except CostExceeded as exc:
        raise _Broken(f"validation failed due to running out of cost budget: {exc}") from None
    return Failure(_message(check, inputs, names, budget), check.get("reason") or "Invalid", index), False


def _message(check: dict, inputs: dict, names: tuple[str, ...], budget: Budget) -> str:
    """`message`, else a good messageExpression result, else `failed expression: <expr>`."""
    if check.get("messageExpression"):
        try:
            text = _run(check["messageExpression"], message_environment(names), inputs, budget)
            if isinstance(text, str) and text.strip() and "\n" not in text and len(text) <= MAX_MESSAGE:
                return str(text)
        except (CompileError, EvalError, CostExceeded):
            pass
    return check.get("message") or f"failed expression: {check['expression'].strip()}"


def _audit(spec: dict, policy: str, inputs: dict, names: tuple[str, ...], budget: Budget, outcome: Outcome) -> None:
    for note in spec.get("auditAnnotations") or []:
        try:
            value = _run(note["valueExpression"], names, inputs, budget)
        except (CompileError, EvalError):
            continue
        if isinstance(value, str):
            outcome.annotations[f"{policy}/{note['key']}"] = str(value)[:MAX_ANNOTATION]
