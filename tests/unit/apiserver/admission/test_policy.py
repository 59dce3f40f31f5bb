"""The ValidatingAdmissionPolicy plugin's pure parts: which writes a match takes, and one binding's
evaluation (matchConditions, variables, messages, failurePolicy); and the policy's validation."""
from __future__ import annotations

import pytest

from actors.apiserver.admission.policy.evaluation import evaluate
from actors.apiserver.admission.policy.matching import Request, matches
from api.admissionpolicy_validation import validate_binding, validate_policy

DEPLOY = Request("CREATE", "apps", "v1", "deployments", "", True, "Deployment", "web", {"app": "web"}, None,
                 {"env": "prod"})
RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
        "resources": ["deployments"], "scope": "*"}


@pytest.mark.parametrize("match,req,want", [
    pytest.param({"resourceRules": [RULE]}, DEPLOY, True, id="rule"),
    pytest.param({"resourceRules": [{**RULE, "operations": ["UPDATE"]}]}, DEPLOY, False, id="other-operation"),
    pytest.param({"resourceRules": [{**RULE, "apiGroups": ["*"], "resources": ["*"]}]}, DEPLOY, True, id="wildcards"),
    pytest.param({"resourceRules": [{**RULE, "resources": ["*"]}]},
                 Request(**{**DEPLOY.__dict__, "subresource": "status"}), False, id="star-not-subresource"),
    pytest.param({"resourceRules": [{**RULE, "resources": ["deployments/*"]}]},
                 Request(**{**DEPLOY.__dict__, "subresource": "status"}), True, id="subresource-star"),
    pytest.param({"resourceRules": [{**RULE, "scope": "Cluster"}]}, DEPLOY, False, id="scope"),
    pytest.param({"resourceRules": [{**RULE, "resourceNames": ["db"]}]}, DEPLOY, False, id="resource-names"),
    pytest.param({"resourceRules": [RULE], "excludeResourceRules": [RULE]}, DEPLOY, False, id="exclusion-wins"),
    pytest.param({"resourceRules": [RULE], "namespaceSelector": {"matchLabels": {"env": "dev"}}}, DEPLOY, False,
                 id="namespace-selector"),
    pytest.param({"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "web"}}}, DEPLOY, True,
                 id="object-selector"),
    pytest.param({"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "db"}}}, DEPLOY, False,
                 id="object-selector-miss"),
])
def test_policy_matching(match, req, want):
    assert matches(match, req) is want


def test_a_binding_without_match_resources_takes_all_its_policy_takes():
    assert matches(None, DEPLOY, rules_required=False)
    assert not matches(None, DEPLOY)


def policy(**spec) -> dict:
    return {"metadata": {"name": "p"}, "spec": {"failurePolicy": "Fail", "validations": [], **spec}}


INPUTS = {"object": {"metadata": {"name": "web", "labels": {}}, "spec": {"replicas": 7}}, "oldObject": None,
          "request": {"operation": "CREATE"}, "namespaceObject": None, "params": {"data": {"max": "3"}}}


@pytest.mark.parametrize("spec,messages", [
    pytest.param({"validations": [{"expression": "object.spec.replicas <= 5"}]},
                 ["failed expression: object.spec.replicas <= 5"], id="default-message"),
    pytest.param({"validations": [{"expression": "object.spec.replicas <= 5", "message": "too many"}]},
                 ["too many"], id="message"),
    pytest.param({"validations": [{"expression": "object.spec.replicas <= 5", "message": "m",
                                   "messageExpression": "'have ' + string(object.spec.replicas)"}]},
                 ["have 7"], id="messageExpression-wins"),
    pytest.param({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                  "validations": [{"expression": "object.spec.replicas <= int(params.data.max)"}]},
                 ["failed expression: object.spec.replicas <= int(params.data.max)"], id="params"),
    pytest.param({"variables": [{"name": "n", "expression": "object.spec.replicas"},
                                {"name": "big", "expression": "variables.n > 5"}],
                  "validations": [{"expression": "!variables.big", "message": "big"}]}, ["big"], id="variables"),
    pytest.param({"matchConditions": [{"name": "only-updates", "expression": "request.operation == 'UPDATE'"}],
                  "validations": [{"expression": "false"}]}, [], id="match-condition-false"),
    pytest.param({"validations": [{"expression": "object.spec.missing > 1"}]},
                 ["expression 'object.spec.missing > 1' resulted in error: no such key: missing"], id="error-fails"),
    pytest.param({"failurePolicy": "Ignore", "validations": [{"expression": "object.spec.missing > 1"}]}, [],
                 id="error-ignored"),
])
def test_evaluation(spec, messages):
    assert [f.message for f in evaluate(policy(**spec), dict(INPUTS)).failures] == messages


def test_reason_and_audit_annotations():
    notes = [{"key": "replicas", "valueExpression": "string(object.spec.replicas)"}]
    outcome = evaluate(policy(validations=[{"expression": "false", "reason": "Forbidden"}], auditAnnotations=notes),
                       dict(INPUTS))
    assert outcome.failures[0].reason == "Forbidden"
    assert outcome.annotations == {"p/replicas": "7"}


@pytest.mark.parametrize("spec,message", [
    pytest.param({"failurePolicy": "Fail", "matchConstraints": {"matchPolicy": "Equivalent", "resourceRules": [RULE]}},
                 "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
                 id="nothing-to-check"),
    pytest.param({"failurePolicy": "Sometimes", "validations": [{"expression": "true"}],
                  "matchConstraints": {"matchPolicy": "Equivalent", "resourceRules": [RULE]}},
                 'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
                 id="failure-policy"),
    pytest.param({"failurePolicy": "Fail", "validations": [{"expression": "params.x"}],
                  "matchConstraints": {"matchPolicy": "Equivalent", "resourceRules": [RULE]}},
                 "spec.validations[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: "
                 "<input>:1:0: undeclared reference to 'params' (in container '')", id="params-without-paramKind"),
])
def test_policy_validation(spec, message):
    assert message in [f"{c.field}: {c.message}".split("\n")[0] for c in validate_policy({"metadata": {"name": "p"},
                                                                                          "spec": spec})]


def test_binding_validation():
    causes = validate_binding({"spec": {"policyName": "p", "validationActions": ["Deny", "Deny"],
                                        "paramRef": {"parameterNotFoundAction": "Allow"}}})
    assert [f"{c.field}: {c.message}" for c in causes] == [
        'spec.validationActions[1]: Duplicate value: "Deny"',
        "spec.paramRef: Required value: one of name or selector must be specified"]
