"""Job admission (batch/v1): SetDefaults_Job, the generated selector, Kubernetes' validation messages
and immutable fields (k8s-config-workloads.md §4), and kubectl's columns."""
from __future__ import annotations

import copy

import pytest

from api import batch
from api.admission import admit
from api.printers.columns import header, row
from api.status import StatusError
from api.updates import status_update_causes, update_causes
from cli.verbs_batch import job_manifest
from store.objects import job_selector, stamp_new

CONTAINERS = [{"name": "c", "image": "busybox"}]


def job(restart: str | None = "Never", **spec) -> dict:
    pod = {"containers": CONTAINERS, **({"restartPolicy": restart} if restart else {})}
    return {"metadata": {"name": "pi"}, "spec": {"template": {"spec": pod}, **spec}}


def refusal(body: dict) -> str:
    with pytest.raises(StatusError) as caught:
        admit("Job", body, "default")
    assert caught.value.reason == "Invalid"
    return caught.value.message


@pytest.mark.parametrize("spec, expected", [
    pytest.param({}, {"completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
                      "suspend": False, "manualSelector": False, "podReplacementPolicy": "TerminatingOrFailed"},
                 id="empty"),
    pytest.param({"parallelism": 3}, {"parallelism": 3, "backoffLimit": 6}, id="parallelism-alone-no-completions"),
    pytest.param({"completions": 5}, {"completions": 5, "parallelism": 1}, id="completions-alone"),
    pytest.param({"completionMode": "Indexed", "completions": 3, "backoffLimitPerIndex": 1},
                 {"backoffLimit": batch.MAX_INT32}, id="per-index-backoff"),
    pytest.param({"podFailurePolicy": {"rules": [{"action": "Ignore",
                                                  "onPodConditions": [{"type": "DisruptionTarget"}]}]}},
                 {"podReplacementPolicy": "Failed"}, id="pod-failure-policy"),
])
def test_defaults(spec, expected):
    admitted = admit("Job", job(**spec), "default")["spec"]
    assert {k: admitted.get(k) for k in expected} == expected
    if "parallelism" in spec and "completions" not in spec:
        assert "completions" not in admitted


@pytest.mark.parametrize("body, message", [
    pytest.param(job(restart=None), 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
                                    '"Never"', id="restart-default-always"),
    pytest.param(job(restart="Always"), 'spec.template.spec.restartPolicy: Required value: valid values: '
                                        '"OnFailure", "Never"', id="restart-always"),
    pytest.param(job(restart="OnFailure", podFailurePolicy={"rules": [
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]}),
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        'podFailurePolicy is specified', id="pod-failure-policy-never-only"),
    pytest.param(job(parallelism=-1), "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
                 id="negative-parallelism"),
    pytest.param(job(backoffLimit=-2), "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0",
                 id="negative-backoff"),
    pytest.param(job(completionMode="Indexed", parallelism=2),
                 "spec.completions: Required value: when completion mode is Indexed", id="indexed-needs-completions"),
    pytest.param(job(completionMode="Indexed", completions=2, parallelism=100001),
                 "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion "
                 "mode is Indexed", id="indexed-parallelism-cap"),
    pytest.param(job(backoffLimitPerIndex=1), "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed "
                                              "completion mode", id="per-index-needs-indexed"),
    pytest.param(job(completionMode="Indexed", completions=2, maxFailedIndexes=1),
                 "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
                 id="max-failed-needs-per-index"),
    pytest.param(job(podFailurePolicy={"rules": [{"action": "Ignore"}]}),
                 'spec.podFailurePolicy.rules[0]: Invalid value: "": specifying one of OnExitCodes and '
                 'OnPodConditions is required', id="rule-needs-a-matcher"),
    pytest.param(job(podFailurePolicy={"rules": [{"action": "Count", "onExitCodes": {"operator": "In",
                                                                                     "values": [0, 1]}}]}),
                 "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In "
                 "operator", id="in-zero"),
    pytest.param(job(podFailurePolicy={"rules": [{"action": "Count", "onExitCodes": {"operator": "NotIn",
                                                                                     "values": [3, 1]}}]}),
                 'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: "[3, 1]": must be ordered',
                 id="codes-ordered"),
    pytest.param(job(podFailurePolicy={"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In",
                                                                                         "values": [1]}}]}),
                 'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the '
                 "backoffLimitPerIndex to be set", id="fail-index-needs-per-index"),
    pytest.param(job(completionMode="Indexed", completions=2, successPolicy={"rules": []}),
                 "spec.successPolicy.rules: Required value: at least one rules must be specified when the "
                 "successPolicy is specified", id="success-policy-rules"),
    pytest.param(job(managedBy="nodomain"), 'spec.managedBy: Invalid value: "nodomain": must be a domain-prefixed '
                                            'path (such as "acme.io/foo")', id="managed-by-path"),
    pytest.param(job(managedBy="acme.io/" + "x" * 60), "spec.managedBy: Too long: may not be more than 63 bytes",
                 id="managed-by-long"),
    pytest.param(job(manualSelector=True, selector={"matchLabels": {"a": "b"}}),
                 "`selector` does not match template `labels`", id="manual-selector-mismatch"),
])
def test_validation_messages(body, message):
    assert message in refusal(body)


def created(body: dict) -> dict:
    obj = admit("Job", body, "default")
    stamp_new(obj, 1, 0.0)
    job_selector(obj)
    return obj


def test_the_selector_is_generated_from_the_uid_with_kubernetes_labels():
    obj = created(job())
    uid = obj["metadata"]["uid"]
    assert obj["spec"]["selector"] == {"matchLabels": {batch.CONTROLLER_UID: uid}}
    labels = {batch.CONTROLLER_UID: uid, batch.LEGACY_CONTROLLER_UID: uid, batch.JOB_NAME: "pi",
              batch.LEGACY_JOB_NAME: "pi"}
    assert obj["spec"]["template"]["metadata"]["labels"] == labels
    assert obj["metadata"]["labels"] == labels


def test_a_selector_naming_another_uid_is_not_auto_generated():
    body = job(selector={"matchLabels": {batch.CONTROLLER_UID: "someone-else"}})
    with pytest.raises(StatusError) as caught:
        created(body)
    assert "spec.selector: Invalid value" in caught.value.message
    assert "`selector` not auto-generated" in caught.value.message


@pytest.mark.parametrize("change, message", [
    pytest.param({"completions": 3}, "spec.completions: Invalid value: 3: field is immutable", id="completions"),
    pytest.param({"completionMode": "Indexed"}, 'spec.completionMode: Invalid value: "Indexed": field is immutable',
                 id="mode"),
    pytest.param({"parallelism": 4}, None, id="parallelism-may-change"),
    pytest.param({"suspend": True}, None, id="suspend-may-change"),
])
def test_updates(change, message):
    old = created(job())
    new = copy.deepcopy(old)
    new["spec"].update(change)
    causes = [c.message if c.field in c.message else f"{c.field}: {c.message}" for c in update_causes("Job", old, new)]
    assert causes == ([message] if message else [])


@pytest.mark.parametrize("suspended, started, change, changed", [
    pytest.param(True, False, {"spec": {"nodeSelector": {"zone": "a"}}}, False, id="suspended-scheduling"),
    pytest.param(True, False, {"metadata": {"annotations": {"a": "b"}}}, False, id="suspended-annotations"),
    pytest.param(True, True, {"spec": {"nodeSelector": {"zone": "a"}}}, True, id="started-before"),
    pytest.param(False, False, {"spec": {"nodeSelector": {"zone": "a"}}}, True, id="running"),
    pytest.param(True, False, {"spec": {"containers": [{"name": "c", "image": "perl"}]}}, True,
                 id="suspended-containers"),
])
def test_template_changes(suspended, started, change, changed):
    old = created(job(suspend=suspended))
    if started:
        old["status"] = {"startTime": "2026-01-01T00:00:00Z"}
    new = copy.deepcopy(old)
    for part, values in change.items():
        new["spec"]["template"].setdefault(part, {}).update(values)
    fields = [c.field for c in update_causes("Job", old, new)]
    assert fields == (["spec.template"] if changed else [])


@pytest.mark.parametrize("spec, status, cells", [
    pytest.param({"completions": 5}, {}, ["Running", "0/5", ""], id="new"),
    pytest.param({"completions": 5}, {"succeeded": 5, "startTime": "2026-01-01T00:00:00Z",
                                      "completionTime": "2026-01-01T00:00:42Z",
                                      "conditions": [{"type": "Complete", "status": "True"}]},
                 ["Complete", "5/5", "42s"], id="complete"),
    pytest.param({"parallelism": 3, "completions": None}, {"succeeded": 1}, ["Running", "1/1 of 3", ""],
                 id="work-queue"),
    pytest.param({"suspend": True}, {"conditions": [{"type": "Suspended", "status": "True"}]},
                 ["Suspended", "0/1", ""], id="suspended"),
    pytest.param({}, {"conditions": [{"type": "FailureTarget", "status": "True"}]}, ["FailureTarget", "0/1", ""],
                 id="failure-target"),
])
def test_kubectl_columns(spec, status, cells):
    obj = created(job(**{k: v for k, v in spec.items() if v is not None}))
    if spec.get("completions", 0) is None:
        obj["spec"].pop("completions", None)
    obj["status"] = status
    assert header("Job", False, False) == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert row("Job", obj, False, False)[:4] == ["pi", *cells]


@pytest.mark.parametrize("command, container", [
    pytest.param((), {"name": "pi", "image": "perl"}, id="no-command"),
    pytest.param(("perl", "-e", "1"), {"name": "pi", "image": "perl", "command": ["perl", "-e", "1"]}, id="command"),
])
def test_create_job_builds_what_kubectl_sends(command, container):
    manifest = job_manifest("pi", "perl", command)
    assert manifest["spec"]["template"]["spec"] == {"containers": [container], "restartPolicy": "Never"}
    admitted = admit("Job", manifest, "default")
    assert admitted["spec"]["backoffLimit"] == 6


COMPLETE = [{"type": "SuccessCriteriaMet", "status": "True"}, {"type": "Complete", "status": "True"}]
FAILED = [{"type": "FailureTarget", "status": "True"}, {"type": "Failed", "status": "True"}]


@pytest.mark.parametrize("before, after, message", [
    pytest.param({}, {"conditions": COMPLETE + FAILED[1:], "completionTime": "2026-01-01T00:00:00Z"},
                 "status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions",
                 id="complete-and-failed"),
    pytest.param({}, {"conditions": FAILED[1:]}, "status.conditions: Invalid value: cannot set Failed=True condition "
                                                 "without the FailureTarget=true condition", id="failed-alone"),
    pytest.param({}, {"conditions": COMPLETE[1:], "completionTime": "2026-01-01T00:00:00Z"},
                 "status.conditions: Invalid value: cannot set Complete=True condition without the "
                 "SuccessCriteriaMet=true condition", id="complete-alone"),
    pytest.param({}, {"conditions": COMPLETE}, "status.completionTime: Required value: completionTime is required "
                                               "for Complete jobs", id="complete-needs-time"),
    pytest.param({"conditions": FAILED}, {"conditions": []},
                 "status.conditions: Invalid value: cannot disable the terminal Failed=True condition",
                 id="failed-stays"),
    pytest.param({"failed": 3}, {"failed": 2}, "status.failed: Invalid value: 2: cannot decrease the failed counter",
                 id="counter-decreases"),
    pytest.param({}, {"conditions": FAILED, "active": 1},
                 "status.active: Invalid value: 1: active>0 is invalid for finished job", id="finished-active"),
    pytest.param({"failed": 1}, {"failed": 2, "active": 1}, None, id="fine"),
])
def test_status_updates(before, after, message):
    causes = [f"{c.field}: {c.message}" for c in status_update_causes("Job", {"status": before}, {"status": after})]
    assert (message in causes) if message else causes == []


@pytest.mark.parametrize("indexes, text", [
    pytest.param(set(), "", id="none"), pytest.param({3}, "3", id="one"), pytest.param({1, 2}, "1,2", id="pair"),
    pytest.param({1, 3, 4, 5, 7}, "1,3-5,7", id="runs"), pytest.param({0, 1, 2}, "0-2", id="three"),
])
def test_indexes_as_kubernetes_writes_them(indexes, text):
    assert batch.format_indexes(indexes) == text
    assert batch.parse_indexes(text) == indexes
