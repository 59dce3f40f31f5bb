"""Webhook matchConditions' pure parts: their validation (Kubernetes' messages) and the decision before a
call — false skips, true calls, an error refuses under Fail (403) and skips under Ignore — with the
`authorizer` asked of a fake authorizer as the requester."""
from __future__ import annotations

import pytest

from actors.apiserver.admission import Attempt
from actors.apiserver.admission.webhook import review
from actors.apiserver.admission.webhook.conditions import should_call
from actors.apiserver.admission.webhook.matching import Hook
from actors.apiserver.authz.rules import Attributes, Decision, UserInfo
from api.registry import lookup
from api.status import StatusError
from api.webhook_validation import match_conditions


def _causes(conditions: list[dict]) -> list[str]:
    return [f"{c.field}: {c.message}".split("\n")[0] for c in match_conditions("webhooks[0].matchConditions",
                                                                               conditions)]


@pytest.mark.parametrize("conditions, messages", [
    pytest.param([{"name": "a", "expression": "request.operation == 'CREATE'"},
                  {"name": "b", "expression": "authorizer.requestResource.check('get').allowed()"}], [], id="good"),
    pytest.param([{"expression": "true"}], ["webhooks[0].matchConditions[0].name: Required value"], id="no-name"),
    pytest.param([{"name": "a"}], ["webhooks[0].matchConditions[0].expression: Required value"], id="no-expression"),
    pytest.param([{"name": "a b", "expression": "true"}],
                 ['webhooks[0].matchConditions[0].name: Invalid value: "a b": name part must consist of alphanumeric '
                  "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', "
                  " or 'my.name',  or '123-abc', regex used for validation is "
                  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"], id="not-qualified"),
    pytest.param([{"name": "a", "expression": "true"}, {"name": "a", "expression": "false"}],
                 ['webhooks[0].matchConditions[1].name: Duplicate value: "a"'], id="duplicate"),
    pytest.param([{"name": "a", "expression": "params.x"}],
                 ["webhooks[0].matchConditions[0].expression: Invalid value: \"params.x\": compilation failed: "
                  "ERROR: <input>:1:0: undeclared reference to 'params' (in container '')"], id="no-params"),
    pytest.param([{"name": "a", "expression": "'yes'"}],
                 ["webhooks[0].matchConditions[0].expression: Invalid value: \"'yes'\": compilation failed: cel "
                  "expression must evaluate to a bool"], id="not-bool"),
    pytest.param([{"name": "a", "expression": "authorizer.path('/x').check('get')"}],
                 ["webhooks[0].matchConditions[0].expression: Invalid value: \"authorizer.path('/x').check('get')\": "
                  "compilation failed: cel expression must evaluate to a bool"], id="a-decision-is-not-bool"),
    pytest.param([{"name": f"c{i}", "expression": "true"} for i in range(65)],
                 ["webhooks[0].matchConditions: Too many: 65: must have at most 64 items"], id="too-many"),
])
def test_validation(conditions, messages):
    assert _causes(conditions) == messages


class Fake:
    """Allows alice to delete deployments in team-a; remembers what it was asked."""

    def __init__(self):
        self.asked: list[Attributes] = []

    def __call__(self, attrs: Attributes) -> Decision:
        self.asked.append(attrs)
        return Decision((attrs.user.name, attrs.verb, attrs.resource, attrs.namespace) ==
                        ("alice", "delete", "deployments", "team-a"))


def _attempt(fake: Fake, user: str = "alice") -> Attempt:
    obj = {"metadata": {"name": "c", "labels": {"team": "a"}}, "data": {"k": "v"}}
    return Attempt("CREATE", lookup("ConfigMap"), "", "team-a", "c", obj, None, UserInfo(user, ("dev",)), None,
                   authorize=fake)


def _hook(*expressions: str, policy: str = "Fail") -> Hook:
    conditions = [{"name": f"c{i}", "expression": e} for i, e in enumerate(expressions)]
    return Hook("conf", 0, {"name": "x.example.com", "failurePolicy": policy, "matchConditions": conditions})


def _decide(hook: Hook, user: str = "alice") -> bool:
    attempt = _attempt(Fake(), user)
    return should_call(hook, attempt, review.request(attempt, "uid-1", False)["request"])


DELETE_DEPLOYMENTS = "authorizer.group('apps').resource('deployments').namespace('team-a').check('delete').allowed()"


@pytest.mark.parametrize("expressions, user, called", [
    pytest.param(("object.data.k == 'v'", "request.userInfo.username == 'alice'"), "alice", True, id="all-true"),
    pytest.param(("object.data.k == 'v'", "oldObject == null && request.operation == 'UPDATE'"), "alice", False,
                 id="one-false"),
    pytest.param(("object.data.missing == 'v'", "false"), "alice", False, id="false-beats-error"),
    pytest.param((DELETE_DEPLOYMENTS,), "alice", True, id="authorizer-allows"),
    pytest.param((DELETE_DEPLOYMENTS,), "bob", False, id="authorizer-denies"),
    pytest.param(("!has(request.object) && !has(request.uid)",), "alice", True, id="request-without-objects"),
])
def test_should_call(expressions, user, called):
    assert _decide(_hook(*expressions), user) is called


def test_an_error_refuses_under_fail_and_skips_under_ignore():
    with pytest.raises(StatusError) as caught:
        _decide(_hook("object.data.missing == 'v'", "true"))
    assert (caught.value.reason, caught.value.message) == (
        "Forbidden", "configmaps \"c\" is forbidden: expression 'object.data.missing == 'v'' resulted in error: "
                     "no such key: missing")
    assert _decide(_hook("object.data.missing == 'v'", policy="Ignore")) is False


def test_errors_are_aggregated():
    with pytest.raises(StatusError) as caught:
        _decide(_hook("object.data.a == 'v'", "object.data.b == 'v'"))
    assert caught.value.message == (
        "configmaps \"c\" is forbidden: [expression 'object.data.a == 'v'' resulted in error: no such key: a, "
        "expression 'object.data.b == 'v'' resulted in error: no such key: b]")


def test_running_out_of_budget_is_an_error():
    spin = "[" + ",".join(["1"] * 200) + "].all(x, [" + ",".join(["1"] * 200) + "].all(y, x == y))"
    with pytest.raises(StatusError) as caught:
        _decide(_hook(spin))
    assert caught.value.message == ('configmaps "c" is forbidden: validation failed due to running out of cost '
                                    "budget, no further validation rules will be run")


def test_a_dry_run_is_refused_only_by_a_webhook_that_would_be_called():
    attempt = _attempt(Fake())
    attempt.dry_run = True
    request = review.request(attempt, "uid-1", True)["request"]
    assert should_call(_hook("false"), attempt, request) is False
    with pytest.raises(StatusError) as caught:
        should_call(_hook("true"), attempt, request)
    assert (caught.value.reason, caught.value.message) == ("BadRequest",
                                                           'admission webhook "x.example.com" does not support dry run')
    safe = Hook("conf", 0, {**_hook("true").spec, "sideEffects": "NoneOnDryRun"})
    assert should_call(safe, attempt, request) is True
