"""A webhook's matchConditions (apiserver `webhook/matchconditions/matcher.go`, `generic/webhook.go`
ShouldCallHook), evaluated just before the webhook would be called, over the AdmissionRequest it would
get: `object`, `oldObject`, `request` and `authorizer` (the requester's checks, ../authorizer.py). Any
false skips the webhook (even beside errors); all true calls it; otherwise an error refuses the write
under failurePolicy Fail (403, `<resource> "<name>" is forbidden: expression '…' resulted in error: …`)
and skips the webhook under Ignore. All of one webhook's conditions share one budget. A webhook that
is to be called on a dry run must say it has no side effects (`does not support dry run`, 400)."""
from __future__ import annotations

from celpy import celtypes

from actors.apiserver.admission.authorizer import cel_authorizer
from actors.apiserver.admission.webhook.matching import Hook
from actors.apiserver.authz import new_forbidden
from actors.apiserver.authz.rbac import aggregate_errors
from api.cel import Budget, CompileError, CostExceeded, EvalError, compile_cel
from api.status import bad_request
from api.webhook_validation import CONDITION_VARIABLES

STEPS = 500_000  # Kubernetes' RuntimeCELCostBudgetMatchConditions, in budget steps (about 5 cost units each)
SECONDS = 0.5
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
NOT_IN_REQUEST = ("object", "oldObject", "uid")  # the request variable is the AdmissionRequest without these
DRY_RUN_SAFE = ("None", "NoneOnDryRun")


def should_call(hook: Hook, attempt, request: dict) -> bool:
    """Whether to call `hook` with the AdmissionRequest `request`; raises the 403 when a condition
    errs under failurePolicy Fail, the 400 when it would be called on a dry run it cannot take."""
    called = _conditions_hold(hook, attempt, request)
    if called and attempt.dry_run and hook.spec.get("sideEffects") not in DRY_RUN_SAFE:
        raise bad_request(f'admission webhook "{hook.name}" does not support dry run')
    return called


def _conditions_hold(hook: Hook, attempt, request: dict) -> bool:
    conditions = hook.spec.get("matchConditions") or []
    if not conditions:
        return True
    errors, false = _evaluate(conditions, _inputs(attempt, request))
    if false:
        return False
    if not errors:
        return True
    if hook.ignore:
        return False
    resource = request.get("resource") or {}
    raise new_forbidden(resource.get("group", ""), resource.get("resource", ""), request.get("name") or "",
                        aggregate_errors(errors))


def _inputs(attempt, request: dict) -> dict:
    return {"object": request.get("object"), "oldObject": request.get("oldObject"),
            "request": {k: v for k, v in request.items() if k not in NOT_IN_REQUEST},
            "authorizer": cel_authorizer(attempt)}


def _evaluate(conditions: list[dict], inputs: dict) -> tuple[list[str], bool]:
    """(the errors, whether any condition was false). Running out of budget is one error that ends the
    evaluation and stands even beside a false (Kubernetes' filter returns it instead of the results)."""
    budget, errors, false = Budget(STEPS, SECONDS), [], False
    for cond in conditions:
        expression = cond.get("expression") or ""
        try:
            result = compile_cel(expression, CONDITION_VARIABLES).evaluate(inputs, budget)
        except CostExceeded:
            return [OUT_OF_BUDGET], False
        except (CompileError, EvalError) as exc:
            errors.append(f"expression '{expression}' resulted in error: {exc}")
            continue
        if not isinstance(result, celtypes.BoolType):
            errors.append(f"expression '{expression}' resulted in error: no such overload: the result is not a bool")
        elif not result:
            false = True
    return errors, false
