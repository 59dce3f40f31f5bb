"""The webhook plugins' pure parts: which webhooks a request meets (rules, selectors, exemptions), the
AdmissionReview sent and what a reply means, and the configurations' defaults and validation."""
from __future__ import annotations

import base64
import json

import pytest

from actors.apiserver.admission import Attempt
from actors.apiserver.admission.webhook import review
from actors.apiserver.admission.webhook.matching import Target, hooks_for, rule_matches
from actors.apiserver.authz.rules import UserInfo
from api.admission import admit
from api.registry import lookup
from api.status import StatusError

POD = Target("CREATE", "", "v1", "pods", "", True)


def _rule(resources=("pods",), operations=("CREATE",), groups=("",), versions=("v1",), scope="*") -> dict:
    return {"operations": list(operations), "apiGroups": list(groups), "apiVersions": list(versions),
            "resources": list(resources), "scope": scope}


@pytest.mark.parametrize("rule, target, expected", [
    pytest.param(_rule(), POD, True, id="exact"),
    pytest.param(_rule(operations=("UPDATE",)), POD, False, id="other-operation"),
    pytest.param(_rule(operations=("*",), groups=("*",), versions=("*",), resources=("*",)), POD, True, id="stars"),
    pytest.param(_rule(resources=("*",)), Target("UPDATE", "", "v1", "pods", "status", True), False,
                 id="star-no-subresource"),
    pytest.param(_rule(resources=("pods/status",), operations=("UPDATE",)),
                 Target("UPDATE", "", "v1", "pods", "status", True), True, id="named-subresource"),
    pytest.param(_rule(resources=("pods/*",)), POD, False, id="pods-star-not-pods"),
    pytest.param(_rule(resources=("*/*",)), Target("CREATE", "", "v1", "pods", "binding", True), True, id="all"),
    pytest.param(_rule(resources=("*/scale",), groups=("apps",)), Target("CREATE", "apps", "v1", "deployments",
                                                                          "scale", True), True, id="star-scale"),
    pytest.param(_rule(scope="Cluster"), POD, False, id="cluster-scope"),
    pytest.param(_rule(resources=("namespaces",), scope="Namespaced"),
                 Target("CREATE", "", "v1", "namespaces", "", False), False, id="namespace-not-namespaced"),
    pytest.param(_rule(groups=("apps",)), POD, False, id="other-group"),
])
def test_rule_matches(rule, target, expected):
    assert rule_matches(rule, target) is expected


def _attempt(kind="ConfigMap", obj=None, old=None, operation="CREATE", namespace="default") -> Attempt:
    obj = obj if obj is not None else {"metadata": {"name": "c", "labels": {"team": "a"}}}
    return Attempt(operation, lookup(kind), "", namespace, "c", obj, old, UserInfo("alice", ("dev",)), None)


def _config(name: str, **hook) -> dict:
    rules = [_rule(("configmaps", "namespaces", "nodes"), ("CREATE", "UPDATE"))]
    return {"metadata": {"name": name}, "webhooks": [{"name": f"{name}.example.com", "rules": rules, **hook}]}


@pytest.mark.parametrize("config, attempt, labels, matched", [
    pytest.param(_config("a"), _attempt(), {}, True, id="empty-selectors"),
    pytest.param(_config("a", namespaceSelector={"matchLabels": {"env": "prod"}}), _attempt(), {"env": "dev"},
                 False, id="namespace-labels-differ"),
    pytest.param(_config("a", namespaceSelector={"matchLabels": {"env": "prod"}}), _attempt(), {"env": "prod"},
                 True, id="namespace-labels-match"),
    pytest.param(_config("a", namespaceSelector={"matchLabels": {"env": "prod"}}),
                 _attempt("Node", namespace=""), {}, True, id="cluster-scoped-always"),
    pytest.param(_config("a", namespaceSelector={"matchLabels": {"team": "a"}}),
                 _attempt("Namespace", namespace=""), {}, True, id="namespace-by-its-own-labels"),
    pytest.param(_config("a", objectSelector={"matchLabels": {"team": "b"}}), _attempt(), {}, False,
                 id="object-labels-differ"),
    pytest.param(_config("a", objectSelector={"matchLabels": {"team": "b"}}),
                 _attempt(operation="UPDATE", old={"metadata": {"labels": {"team": "b"}}}), {}, True,
                 id="old-object-matches"),
    pytest.param(_config("a"), _attempt("ValidatingWebhookConfiguration", namespace=""), {}, False, id="exempt"),
])
def test_hooks_for(config, attempt, labels, matched):
    assert bool(hooks_for([config], attempt, labels)) is matched


def test_configurations_run_sorted_by_name():
    hooks = hooks_for([_config("b"), _config("a")], _attempt(), {})
    assert [h.name for h in hooks] == ["a.example.com", "b.example.com"]


def test_review_request_carries_the_request():
    sent = review.request(_attempt(), "uid-1", dry_run=True)
    request = sent["request"]
    assert sent["apiVersion"] == "admission.k8s.io/v1" and request["uid"] == "uid-1" and request["dryRun"] is True
    assert request["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["object"]["kind"] == "ConfigMap" and request["oldObject"] is None
    assert request["userInfo"] == {"username": "alice", "uid": "", "groups": ["dev"]}
    assert request["options"] == {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}


def test_review_objects_carry_fields_v1_as_json_objects():
    entry = {"manager": "m", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": '{"f:data":{}}'}
    stored = {"metadata": {"name": "c", "managedFields": [entry]}}
    request = review.request(_attempt(obj=stored, old=stored, operation="UPDATE"), "u", dry_run=False)["request"]
    for side in ("object", "oldObject"):
        assert request[side]["metadata"]["managedFields"][0]["fieldsV1"] == {"f:data": {}}
    assert stored["metadata"]["managedFields"][0] is entry and entry["fieldsV1"] == '{"f:data":{}}'


def _reply(uid="u", **response) -> dict:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": uid, **response}}


@pytest.mark.parametrize("reply, mutating, message", [
    pytest.param({}, True, "webhook response was absent", id="absent"),
    pytest.param(_reply("v", allowed=True), True, 'expected response.uid="u", got "v"', id="uid"),
    pytest.param(_reply(allowed=True, patch="W10="), True, "webhook returned response.patch but not "
                 "response.patchType", id="patch-without-type"),
    pytest.param(_reply(allowed=True, patch="W10=", patchType="JSONPatch"), False,
                 "validating webhook may not return response.patch", id="validating-patch"),
    pytest.param({**_reply(allowed=True), "kind": "Other"}, True, "expected webhook response of "
                 "admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1, Kind=Other", id="kind"),
])
def test_invalid_replies(reply, mutating, message):
    with pytest.raises(review.InvalidReply, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        review.verdict(reply, "u", mutating)


def test_verdict_reads_patch_warnings_and_annotations():
    patch = base64.b64encode(json.dumps([{"op": "add", "path": "/x", "value": 1}]).encode()).decode()
    result = review.verdict(_reply(allowed=True, patch=patch, patchType="JSONPatch", warnings=["w"],
                                   auditAnnotations={"k": "v"}), "u", True)
    assert (result.allowed, result.patch, result.warnings, result.audit_annotations) == \
        (True, [{"op": "add", "path": "/x", "value": 1}], ["w"], {"k": "v"})


@pytest.mark.parametrize("status, reason, message", [
    pytest.param({"code": 403, "reason": "Forbidden", "message": "no"}, "Forbidden", ": no", id="message"),
    pytest.param({"reason": "Forbidden"}, "BadRequest", ": Forbidden", id="reason-only"),
    pytest.param({}, "BadRequest", " without explanation", id="nothing"),
])
def test_denials_as_kubernetes_words_them(status, reason, message):
    error = review.denied("x.example.com", _reply(allowed=False, status=status))
    assert (error.reason, error.message) == (reason, f'admission webhook "x.example.com" denied the request{message}')


def _configuration(kind: str, **hook) -> dict:
    spec = {"name": "a.example.com", "clientConfig": {"url": "https://h/x"}, "rules": [_rule()],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], **hook}
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": "c"},
            "webhooks": [spec]}


def test_defaults():
    hook = admit("MutatingWebhookConfiguration", _configuration("MutatingWebhookConfiguration"))["webhooks"][0]
    assert {k: hook[k] for k in ("failurePolicy", "matchPolicy", "timeoutSeconds", "reinvocationPolicy",
                                 "namespaceSelector", "objectSelector")} == \
        {"failurePolicy": "Fail", "matchPolicy": "Equivalent", "timeoutSeconds": 10, "reinvocationPolicy": "Never",
         "namespaceSelector": {}, "objectSelector": {}}
    assert hook["rules"][0]["scope"] == "*"


@pytest.mark.parametrize("hook, message", [
    pytest.param({"name": "short.name"}, 'webhooks[0].name: Invalid value: "short.name": should be a domain with at '
                 "least three segments separated by dots", id="name"),
    pytest.param({"sideEffects": None}, "webhooks[0].sideEffects: Required value: must specify one of None, "
                 "NoneOnDryRun", id="side-effects"),
    pytest.param({"sideEffects": "Some"}, 'webhooks[0].sideEffects: Unsupported value: "Some": supported values: '
                 '"None", "NoneOnDryRun"', id="side-effects-some"),
    pytest.param({"timeoutSeconds": 31}, "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must "
                 "be between 1 and 30 seconds", id="timeout"),
    pytest.param({"admissionReviewVersions": []}, "webhooks[0].admissionReviewVersions: Required value: must "
                 "specify one of v1, v1beta1", id="review-versions"),
    pytest.param({"clientConfig": {"url": "http://h/x"}}, "webhooks[0].clientConfig.url: Invalid value: "
                 "\"http://h/x\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
                 id="http"),
    pytest.param({"clientConfig": {}}, "webhooks[0].clientConfig: Required value: exactly one of url or service "
                 "is required", id="no-client"),
    pytest.param({"failurePolicy": "Maybe"}, 'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported '
                 'values: "Fail", "Ignore"', id="failure-policy"),
    pytest.param({"rules": [_rule(operations=("*", "CREATE"))]}, "webhooks[0].rules[0].operations: Invalid value: "
                 "\"[* CREATE]\": if '*' is present, must not specify other operations", id="star-and-more"),
])
def test_validation_messages(hook, message):
    with pytest.raises(StatusError) as caught:
        admit("ValidatingWebhookConfiguration", _configuration("ValidatingWebhookConfiguration", **hook))
    assert caught.value.reason == "Invalid" and message in caught.value.message
