"""The audit policy as Kubernetes' checker matches it, the Event's shape, its stages, and the file writer."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from actors.apiserver.audit import DEFAULT_POLICY, Policy, level_for, load_policy, request_uri
from actors.apiserver.auditlog import AuditLog
from actors.apiserver.authz.rules import Attributes, UserInfo
from api.times import micro_time

T0 = datetime(2026, 11, 23, 15, 4, 5, 123456, tzinfo=timezone.utc).timestamp()


def attrs(user: str, verb: str, resource: str, group: str = "", sub: str = "", ns: str = "", name: str = "",
          groups=()) -> Attributes:
    """A request as the authorizer (and so the audit) sees it."""
    return Attributes(UserInfo(user, tuple(groups)), verb, resource, group, sub, ns, name)


def policy(*rules, **extra) -> Policy:
    return Policy.model_validate({"rules": list(rules), **extra})


def res(*resources, group="", names=()):
    return {"group": group, "resources": list(resources), "resourceNames": list(names)}


# (rule, attributes: user, groups, verb, group, resource, subresource, namespace, name) -> matches
MATCHES = [
    pytest.param({}, ("alice", (), "get", "", "pods", "", "a", "p"), True, id="empty-rule-matches-all"),
    pytest.param({"users": ["bob"]}, ("alice", (), "get", "", "pods", "", "a", "p"), False, id="user-differs"),
    pytest.param({"userGroups": ["devs"]}, ("alice", ("ops", "devs"), "get", "", "pods", "", "a", "p"), True,
                 id="one-group-is-enough"),
    pytest.param({"userGroups": ["devs"]}, ("alice", ("ops",), "get", "", "pods", "", "a", "p"), False,
                 id="no-group-in-common"),
    pytest.param({"verbs": ["create"]}, ("alice", (), "get", "", "pods", "", "a", "p"), False, id="verb-differs"),
    pytest.param({"namespaces": ["a"]}, ("alice", (), "get", "", "pods", "", "a", "p"), True, id="namespace"),
    pytest.param({"namespaces": ["a"]}, ("alice", (), "get", "", "nodes", "", "", "n"), False,
                 id="cluster-scoped-has-namespace-empty"),
    pytest.param({"namespaces": [""]}, ("alice", (), "get", "", "nodes", "", "", "n"), True,
                 id="empty-namespace-names-cluster-scope"),
    pytest.param({"resources": [res("pods")]}, ("alice", (), "get", "", "pods", "log", "a", "p"), False,
                 id="subresource-needs-its-own-entry"),
    pytest.param({"resources": [res("pods/log")]}, ("alice", (), "get", "", "pods", "log", "a", "p"), True,
                 id="resource-slash-subresource"),
    pytest.param({"resources": [res("pods/*")]}, ("alice", (), "get", "", "pods", "log", "a", "p"), True,
                 id="resource-slash-star"),
    pytest.param({"resources": [res("pods/*")]}, ("alice", (), "get", "", "pods", "", "a", "p"), True,
                 id="resource-slash-star-matches-the-resource-too"),
    pytest.param({"resources": [res("*/status")]}, ("alice", (), "update", "", "pods", "status", "a", "p"), True,
                 id="star-slash-subresource"),
    pytest.param({"resources": [res("*/status")]}, ("alice", (), "update", "", "pods", "", "a", "p"), False,
                 id="star-slash-subresource-not-the-resource"),
    pytest.param({"resources": [res("*")]}, ("alice", (), "get", "", "pods", "log", "a", "p"), True,
                 id="star-matches-subresources"),
    pytest.param({"resources": [res()]}, ("alice", (), "get", "", "pods", "", "a", "p"), True,
                 id="group-without-resources-is-the-whole-group"),
    pytest.param({"resources": [res("deployments")]}, ("alice", (), "get", "apps", "deployments", "", "a", "d"),
                 False, id="group-differs"),
    pytest.param({"resources": [res("deployments", group="apps")]},
                 ("alice", (), "get", "apps", "deployments", "", "a", "d"), True, id="named-group"),
    pytest.param({"resources": [res("pods", names=["p"])]}, ("alice", (), "get", "", "pods", "", "a", "p"), True,
                 id="resource-name"),
    pytest.param({"resources": [res("pods", names=["q"])]}, ("alice", (), "get", "", "pods", "", "a", "p"), False,
                 id="resource-name-differs"),
    pytest.param({"nonResourceURLs": ["/healthz*"]}, ("alice", (), "get", "", "pods", "", "a", "p"), False,
                 id="non-resource-rule-skips-resources"),
    pytest.param({"resources": [res("pods")], "namespaces": ["a"], "verbs": ["get"], "users": ["alice"]},
                 ("alice", (), "get", "", "pods", "", "b", "p"), False, id="every-field-must-match"),
]


@pytest.mark.parametrize("rule, attrs, matches", MATCHES)
def test_rule_matching_follows_kubernetes(rule, attrs, matches):
    p = policy({"level": "Metadata", **rule})
    assert level_for(p, *attrs) == ("Metadata" if matches else "None")


@pytest.mark.parametrize("path, spec, matches", [
    pytest.param("/healthz", "/healthz*", True, id="prefix-star"),
    pytest.param("/healthz/etcd", "/healthz*", True, id="prefix-star-deeper"),
    pytest.param("/version", "/version", True, id="exact"),
    pytest.param("/versions", "/version", False, id="exact-only"),
    pytest.param("/anything", "*", True, id="star"),
])
def test_non_resource_urls(path, spec, matches):
    p = policy({"level": "Metadata", "nonResourceURLs": [spec]})
    assert level_for(p, "alice", (), "get", "", "", "", "", "", path=path) == ("Metadata" if matches else "None")


def test_first_matching_rule_wins_and_no_match_is_none():
    p = policy({"level": "RequestResponse", "resources": [res("roles", group="rbac.authorization.k8s.io")]},
               {"level": "Metadata", "namespaces": ["a"]})
    assert level_for(p, "u", (), "get", "rbac.authorization.k8s.io", "roles", "", "a", "r") == "RequestResponse"
    assert level_for(p, "u", (), "get", "", "pods", "", "a", "p") == "Metadata"
    assert level_for(p, "u", (), "get", "", "pods", "", "b", "p") == "None"


@pytest.mark.parametrize("body", [
    pytest.param({"rules": [{"level": "Loud"}]}, id="unknown-level"),
    pytest.param({"rules": [{"level": "None", "verb": ["get"]}]}, id="typo-in-a-field"),
    pytest.param({"rules": [{"level": "None", "resources": [res("pods")], "nonResourceURLs": ["/x"]}]},
                 id="both-resources-and-urls"),
    pytest.param({"omitStages": ["Later"]}, id="unknown-stage"),
])
def test_policy_refuses_what_kubernetes_refuses(body):
    with pytest.raises(ValidationError):
        Policy.model_validate(body)


@pytest.mark.parametrize("attrs, level", [
    pytest.param(("system:node:n1", ("system:nodes",), "get", "coordination.k8s.io", "leases", "", "kube-node-lease",
                  "n1"), "None", id="node-reads-its-lease"),
    pytest.param(("system:node:n1", ("system:nodes",), "update", "coordination.k8s.io", "leases", "",
                  "kube-node-lease", "n1"), "None", id="node-renews-its-lease"),
    pytest.param(("system:node:n1", ("system:nodes",), "list", "", "events", "", "a", ""), "None",
                 id="node-lists-events"),
    pytest.param(("system:kubus:hollow-kubelet", ("system:masters",), "update", "coordination.k8s.io", "leases", "",
                  "kube-node-lease", "n1"), "None", id="hollow-kubelet-renews-leases"),
    pytest.param(("system:node:n1", ("system:nodes",), "update", "", "pods", "status", "a", "p"), "Metadata",
                 id="node-writes-pod-status"),
    pytest.param(("alice", (), "get", "coordination.k8s.io", "leases", "", "a", "l"), "Metadata",
                 id="people-reading-leases"),
    pytest.param(("alice", (), "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "", "x"),
                 "RequestResponse", id="rbac-with-bodies"),
    pytest.param(("alice", (), "delete", "apps", "deployments", "", "a", "d"), "Metadata", id="everything-else"),
    pytest.param(("alice", (), "create", "", "secrets", "", "a", "s"), "Metadata", id="secrets-without-bodies"),
    pytest.param(("alice", (), "create", "", "serviceaccounts", "token", "a", "sa"), "Metadata",
                 id="token-requests-without-bodies"),
    pytest.param(("alice", (), "create", "authentication.k8s.io", "tokenreviews", "", "", ""), "Metadata",
                 id="token-reviews-without-bodies"),
])
def test_default_policy(attrs, level):
    assert level_for(load_policy(DEFAULT_POLICY), *attrs) == level


@pytest.mark.parametrize("request_attrs, uri", [
    pytest.param(attrs("u", "get", "pods", ns="team-a", name="web"), "/api/v1/namespaces/team-a/pods/web",
                 id="get-pod"),
    pytest.param(attrs("u", "create", "pods", ns="team-a", name="web"), "/api/v1/namespaces/team-a/pods",
                 id="create-posts"),
    pytest.param(attrs("u", "list", "deployments", "apps", ns="team-a"), "/apis/apps/v1/namespaces/team-a/deployments",
                 id="list-grouped"),
    pytest.param(attrs("u", "watch", "pods"), "/api/v1/pods?watch=true", id="watch-all-namespaces"),
    pytest.param(attrs("u", "update", "nodes", sub="status", name="n1"), "/api/v1/nodes/n1/status",
                 id="cluster-scoped-status"),
    pytest.param(attrs("u", "create", "pods", sub="binding", ns="a", name="p"), "/api/v1/namespaces/a/pods/p/binding",
                 id="binding"),
    pytest.param(attrs("u", "delete", "namespaces", name="shop"), "/api/v1/namespaces/shop", id="namespace-itself"),
    pytest.param(attrs("u", "get", "clusterroles", "rbac.authorization.k8s.io", name="system:controller:gc"),
                 "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:gc", id="rbac"),
    pytest.param(attrs("u", "list", "leases", "coordination.k8s.io"), "/apis/coordination.k8s.io/v1/leases",
                 id="grouped-list"),
])
def test_request_uri(request_attrs, uri):
    assert request_uri(request_attrs) == uri


def test_micro_time_is_rfc3339_with_microseconds():
    assert micro_time(T0) == "2026-11-23T15:04:05.123456Z"


def _written(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


ALLOW = {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}


def test_an_event_per_request_at_the_rule_level(tmp_path):
    p = policy({"level": "None", "users": ["quiet"]},
               {"level": "RequestResponse", "resources": [res("clusterroles", group="rbac.authorization.k8s.io")]},
               {"level": "Request", "resources": [res("pods")]}, {"level": "Metadata"},
               omitStages=["RequestReceived"])
    path = tmp_path / "audit" / "audit.log"
    role = {"metadata": {"name": "view", "managedFields": [{"manager": "x"}]}, "rules": []}
    with AuditLog(path, p, clock=lambda: T0) as audit:
        audit.record(attrs("alice", "create", "clusterroles", "rbac.authorization.k8s.io", name="view",
                           groups=["devs"]), code=201,
                     request_object=role, response_object=role, user_agent="cli", audit_id="id-1",
                     annotations={**ALLOW,
                                  "authorization.k8s.io/reason": 'RBAC: allowed by ClusterRoleBinding "admins"'})
        audit.record(attrs("quiet", "get", "pods", ns="a", name="p"))
        audit.record(attrs("bob", "create", "pods", ns="a", name="p"), request_object={"x": 1},
                     response_object={"y": 2}, code=403, reason="Forbidden", message="no",
                     annotations={"authorization.k8s.io/decision": "forbid",
                                  "pod-security.kubernetes.io/enforce-policy": "restricted:latest"})
        audit.record(attrs("carol", "update", "nodes", sub="status", name="n1"), request_object={"x": 1})
    rbac, pod, node = _written(path)
    assert rbac == {
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "RequestResponse", "auditID": "id-1",
        "stage": "ResponseComplete", "requestURI": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        "verb": "create", "user": {"username": "alice", "groups": ["devs"]}, "sourceIPs": [], "userAgent": "cli",
        "objectRef": {"resource": "clusterroles", "name": "view", "apiGroup": "rbac.authorization.k8s.io",
                      "apiVersion": "v1"},
        "responseStatus": {"metadata": {}, "code": 201}, "requestObject": role, "responseObject": role,
        "requestReceivedTimestamp": "2026-11-23T15:04:05.123456Z", "stageTimestamp": "2026-11-23T15:04:05.123456Z",
        "annotations": {"authorization.k8s.io/decision": "allow",
                        "authorization.k8s.io/reason": 'RBAC: allowed by ClusterRoleBinding "admins"'}}
    assert pod["level"] == "Request" and pod["requestObject"] == {"x": 1} and "responseObject" not in pod
    assert pod["responseStatus"] == {"metadata": {}, "code": 403, "status": "Failure", "reason": "Forbidden",
                                     "message": "no"}
    assert pod["annotations"]["authorization.k8s.io/decision"] == "forbid"
    assert pod["annotations"]["pod-security.kubernetes.io/enforce-policy"] == "restricted:latest"
    assert node["level"] == "Metadata" and "requestObject" not in node
    assert node["objectRef"] == {"resource": "nodes", "name": "n1", "apiVersion": "v1", "subresource": "status"}


def test_managed_fields_omitted_when_the_policy_says_so(tmp_path):
    p = policy({"level": "RequestResponse"}, omitManagedFields=True, omitStages=["RequestReceived"])
    with AuditLog(tmp_path / "a.log", p) as audit:
        audit.record(attrs("u", "create", "pods", ns="a", name="p"),
                     request_object={"metadata": {"name": "p", "managedFields": [{}]}})
    assert _written(tmp_path / "a.log")[0]["requestObject"] == {"metadata": {"name": "p"}}


def test_managed_fields_kept_are_logged_with_fields_v1_as_json_objects(tmp_path):
    p = policy({"level": "RequestResponse"}, omitStages=["RequestReceived"])
    entry = {"manager": "m", "fieldsType": "FieldsV1", "fieldsV1": '{"f:spec":{}}'}
    with AuditLog(tmp_path / "a.log", p) as audit:
        audit.record(attrs("u", "create", "pods", ns="a", name="p"),
                     request_object={"metadata": {"name": "p", "managedFields": [entry]}})
    logged = _written(tmp_path / "a.log")[0]["requestObject"]["metadata"]["managedFields"]
    assert logged == [{**entry, "fieldsV1": {"f:spec": {}}}]


# omitStages of the policy and of the matching rule, as Kubernetes unites them -> the stages written
STAGES = [
    pytest.param({}, {}, ["RequestReceived", "ResponseComplete"], id="none-omitted"),
    pytest.param({"omitStages": ["RequestReceived"]}, {}, ["ResponseComplete"], id="policy-omits"),
    pytest.param({}, {"omitStages": ["RequestReceived"]}, ["ResponseComplete"], id="rule-omits"),
    pytest.param({"omitStages": ["ResponseComplete"]}, {"omitStages": ["RequestReceived"]}, [], id="both-united"),
]


@pytest.mark.parametrize("policy_fields, rule_fields, stages", STAGES)
def test_stages_written_unless_omitted(tmp_path, policy_fields, rule_fields, stages):
    p = policy({"level": "Request", **rule_fields}, **policy_fields)
    with AuditLog(tmp_path / "a.log", p, clock=lambda: T0) as audit:
        audit.record(attrs("u", "create", "pods", ns="a", name="p"), code=201, request_object={"x": 1}, audit_id="a1")
    events = _written(tmp_path / "a.log") if stages else []
    assert [e["stage"] for e in events] == stages and {e["auditID"] for e in events} <= {"a1"}
    if "RequestReceived" in stages:  # written before the request is read or answered, as Kubernetes does
        assert "requestObject" not in events[0] and "responseStatus" not in events[0]


def test_a_handed_on_request_is_received_now_and_complete_when_its_outcome_comes(tmp_path):
    """The store answers the client directly: RequestReceived when the apiserver hands it on, and the
    ResponseComplete (the same auditID and received time) once the store says how it ended."""
    times = iter([T0, T0 + 1])
    with AuditLog(tmp_path / "a.log", policy({"level": "Metadata"}), clock=lambda: next(times)) as audit:
        audited = audit.begin(attrs("u", "create", "pods", ns="a", name="p"), audit_id="a1", received=T0)
        assert [e["stage"] for e in _written(tmp_path / "a.log")] == ["RequestReceived"]  # on disk at once
        audit.complete(audited, 409, "AlreadyExists", 'pods "p" already exists')
    received, complete = _written(tmp_path / "a.log")
    assert complete["stage"] == "ResponseComplete" and complete["auditID"] == "a1"
    assert complete["responseStatus"]["code"] == 409 and complete["responseStatus"]["reason"] == "AlreadyExists"
    assert complete["requestReceivedTimestamp"] == received["requestReceivedTimestamp"] == micro_time(T0)
    assert complete["stageTimestamp"] == micro_time(T0 + 1)


def test_each_line_is_in_the_file_when_recorded_and_appends(tmp_path):
    path = tmp_path / "a.log"
    path.write_text('{"earlier":true}\n')
    audit = AuditLog(path, policy({"level": "Metadata", "omitStages": ["RequestReceived"]}))
    audit.record(attrs("u", "get", "pods", ns="a", name="p"))
    assert len(path.read_text().splitlines()) == 2  # no buffer to lose: flushed per line
    audit.close()
    assert _written(path)[0] == {"earlier": True}


def test_a_failing_disk_never_raises_into_the_caller_and_keeps_its_lines(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    audit = AuditLog(blocker / "audit.log", policy({"level": "Metadata", "omitStages": ["RequestReceived"]}))
    audit.record(attrs("u", "get", "pods", ns="a", name="p"))
    assert audit.failing and len(audit._pending) == 1  # kept for the next try
    blocker.unlink()
    blocker.mkdir()
    audit.flush()
    assert not audit.failing and len(_written(blocker / "audit.log")) == 1
    audit.close()
    audit.record(attrs("u", "get", "pods", ns="a", name="p"), request_object=object())
