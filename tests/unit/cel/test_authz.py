"""The authz CEL library (apiserver `pkg/cel/library/authz.go`) over a fake authorizer: what each
chain asks, what a decision answers, the argument checks' errors, the budget a check costs, and
where `authorizer` is declared (not in a messageExpression)."""
from __future__ import annotations

import re

import pytest

from actors.apiserver.admission.policy.evaluation import evaluate
from api.admissionpolicy_validation import validate_policy
from api.cel import Budget, CostExceeded, EvalError, compile_cel
from api.cel.authz import Ask, Subject, Verdict, authorizer_for

ALICE = Subject("alice", ("team-a",))
ENV = ("object", "authorizer")


class FakeAuthorizer:
    """Allows what `grants` lists as (user, verb, group, resource, namespace); remembers every question."""

    def __init__(self, *grants: tuple[str, str, str, str, str]):
        self.grants, self.asked = set(grants), []

    def __call__(self, ask: Ask) -> Verdict:
        self.asked.append(ask)
        key = (ask.subject.name, ask.verb, ask.group, ask.resource or ask.path, ask.namespace)
        return Verdict(True, "RBAC: allowed by test") if key in self.grants else Verdict(False, "")


def run(expression: str, fake: FakeAuthorizer, budget: Budget | None = None):
    authz = authorizer_for(ALICE, fake, "apps", "deployments", "scale", "team-a", "web")
    return compile_cel(expression, ENV).evaluate({"object": {}, "authorizer": authz}, budget)


@pytest.mark.parametrize("expression, asked", [
    pytest.param("authorizer.group('apps').resource('deployments').namespace('team-a').check('delete')",
                 Ask(ALICE, "delete", "apps", "deployments", "", "team-a"), id="namespaced"),
    pytest.param("authorizer.group('').resource('pods').subresource('log').name('p').check('get')",
                 Ask(ALICE, "get", "", "pods", "log", "", "p"), id="subresource-and-name"),
    pytest.param("authorizer.path('/healthz').check('get')", Ask(ALICE, "get", path="/healthz"), id="path"),
    pytest.param("authorizer.requestResource.check('update')",
                 Ask(ALICE, "update", "apps", "deployments", "scale", "team-a", "web"), id="request-resource"),
    pytest.param("authorizer.serviceAccount('team-a', 'builder').group('').resource('secrets').check('list')",
                 Ask(Subject("system:serviceaccount:team-a:builder",
                             ("system:serviceaccounts", "system:serviceaccounts:team-a")), "list", "", "secrets"),
                 id="service-account"),
])
def test_what_a_check_asks(expression, asked):
    fake = FakeAuthorizer()
    run(expression, fake)
    assert fake.asked == [asked]


@pytest.mark.parametrize("method, allowed_answer, denied_answer", [
    pytest.param("allowed()", True, False, id="allowed"),
    pytest.param("reason()", "RBAC: allowed by test", "", id="reason"),
    pytest.param("errored()", False, False, id="errored"),
    pytest.param("error()", "", "", id="error"),
])
def test_the_decision(method, allowed_answer, denied_answer):
    fake = FakeAuthorizer(("alice", "delete", "apps", "deployments", "team-a"))
    chain = "authorizer.group('apps').resource('deployments').namespace('team-a').check('{verb}')." + method
    assert run(chain.format(verb="delete"), fake) == allowed_answer
    assert run(chain.format(verb="create"), fake) == denied_answer


@pytest.mark.parametrize("expression, message", [
    pytest.param("authorizer.path(' ').check('get')", "path must not be empty", id="empty-path"),
    pytest.param("authorizer.group('').resource('').check('get')", "resource must not be empty", id="empty-resource"),
    pytest.param("authorizer.serviceAccount('ns', 'Bad_Name').path('/x').check('get')",
                 "Invalid service account name", id="sa-name"),
    pytest.param("authorizer.serviceAccount('not.a.label', 'sa').path('/x').check('get')",
                 "Invalid service account namespace", id="sa-namespace"),
    pytest.param("authorizer.group(1)", "found no matching overload for 'group' applied to "
                 "'(kubernetes.authorization.Authorizer, int)'", id="not-a-string"),
])
def test_argument_errors(expression, message):
    fake = FakeAuthorizer()
    with pytest.raises(EvalError, match=re.escape(message)):
        run(expression, fake)
    assert fake.asked == []


def test_a_check_costs_most_of_a_call_budget():
    fake, check = FakeAuthorizer(), "authorizer.path('/x').check('get').allowed()"
    assert run(" || ".join([check] * 2), fake, Budget()) is not None
    with pytest.raises(CostExceeded):
        run(" || ".join([check] * 3), fake, Budget())


def test_authorizer_in_a_policy_but_not_in_its_message_expression():
    spec = {"failurePolicy": "Fail", "matchConstraints": {"matchPolicy": "Equivalent", "resourceRules": [
        {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"],
         "scope": "*"}]},
        "validations": [{"expression": "authorizer.requestResource.check('delete').allowed()",
                         "messageExpression": "authorizer.requestResource.check('get').reason()"}]}
    causes = [f"{c.field}: {c.message}".split("\n")[0] for c in validate_policy({"metadata": {"name": "p"},
                                                                                "spec": spec})]
    assert causes == ["spec.validations[0].messageExpression: Invalid value: "
                      "\"authorizer.requestResource.check('get').reason()\": compilation failed: ERROR: <input>:1:0: "
                      "undeclared reference to 'authorizer' (in container '')"]


def test_a_policy_evaluates_checks_as_the_requester():
    fake = FakeAuthorizer(("alice", "delete", "apps", "deployments", "team-a"))
    authz = authorizer_for(ALICE, fake, "apps", "deployments", "", "team-a", "web")
    check = "authorizer.group('apps').resource('deployments').namespace('team-a').check('{}').allowed()"
    policy = {"metadata": {"name": "p"}, "spec": {"failurePolicy": "Fail", "validations": [
        {"expression": check.format("delete"), "message": "may delete"},
        {"expression": check.format("escalate"), "message": "may not escalate"}]}}
    inputs = {"object": {}, "oldObject": None, "request": {}, "namespaceObject": None, "authorizer": authz}
    assert [f.message for f in evaluate(policy, inputs).failures] == ["may not escalate"]
