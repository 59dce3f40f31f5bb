"""The Job controller's decisions (actors/controllers/jobsync.py) on a fake clock: what to create, what
to count through uncountedTerminatedPods, the conditions with Kubernetes' reasons and messages, the
failure back-off, the deadline, suspend and resume (k8s-config-workloads.md §4)."""
from __future__ import annotations

import pytest

from actors.controllers import jobsync
from actors.controllers.job import pod_for
from actors.controllers.ttlafterfinished import expires_in
from api import batch
from api.times import rfc3339

T0 = 1_800_000_000.0


def job(status: dict | None = None, **spec) -> dict:
    base = {"completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
            "suspend": False, "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "pi", "namespace": "default", "uid": "job-uid"},
            "spec": {**base, **spec}, "status": status or {}}


def pod(n: int, phase: str = "Running", tracked: bool = True, finished_at: float | None = None,
        index: int | None = None, code: int | None = None, deleting: bool = False) -> dict:
    meta = {"name": f"pi-{n}", "namespace": "default", "uid": f"uid-{n}", "creationTimestamp": rfc3339(T0),
            "finalizers": [batch.TRACKING_FINALIZER] if tracked else []}
    if index is not None:
        meta["annotations"] = {batch.COMPLETION_INDEX: str(index)}
    if deleting:
        meta["deletionTimestamp"] = rfc3339(T0)
    status: dict = {"phase": phase}
    if finished_at is not None:
        status["containerStatuses"] = [{"name": "c", "state": {"terminated": {
            "exitCode": code if code is not None else (0 if phase == "Succeeded" else 1),
            "finishedAt": rfc3339(finished_at)}}}]
    return {"metadata": meta, "spec": {}, "status": status}


def types(plan: jobsync.Plan) -> dict[str, tuple]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in plan.status.get("conditions") or []}


@pytest.mark.parametrize("spec, pods, creates", [
    pytest.param({"completions": 5, "parallelism": 2}, [], [None, None], id="parallelism-caps"),
    pytest.param({"completions": 5, "parallelism": 2}, [pod(1)], [None], id="one-running"),
    pytest.param({"completions": 3, "parallelism": 5}, [], [None] * 3, id="completions-cap"),
    pytest.param({"completions": None, "parallelism": 3}, [], [None] * 3, id="work-queue"),
    pytest.param({"completionMode": "Indexed", "completions": 4, "parallelism": 2}, [pod(1, index=0)], [1],
                 id="indexed-lowest-free"),
    pytest.param({"suspend": True}, [], [], id="suspended"),
])
def test_creates(spec, pods, creates):
    plan = jobsync.sync(job(**spec), pods, T0)
    assert plan.create == creates


@pytest.mark.parametrize("policy, creates", [
    pytest.param("TerminatingOrFailed", [None], id="replaced-while-terminating"),
    pytest.param("Failed", [], id="replaced-once-failed"),
])
def test_pod_replacement_policy(policy, creates):
    terminating = pod(1, tracked=False, deleting=True)
    plan = jobsync.sync(job({"startTime": rfc3339(T0)}, podReplacementPolicy=policy), [terminating], T0)
    assert plan.create == creates and plan.status["terminating"] == 1


def test_a_finished_pod_is_counted_through_uncounted_then_its_finalizer():
    first = jobsync.sync(job(completions=2), [pod(1, "Succeeded", finished_at=T0)], T0)
    assert first.status["uncountedTerminatedPods"] == {"succeeded": ["uid-1"]}
    assert [p["metadata"]["uid"] for p in first.untrack] == ["uid-1"]
    assert first.status["succeeded"] == 0
    second = jobsync.sync(job(first.status, completions=2), [pod(1, "Succeeded", tracked=False)], T0)
    assert second.status["succeeded"] == 1 and "uncountedTerminatedPods" not in second.status or \
        second.status["uncountedTerminatedPods"] == {}
    assert second.create == [None]


def test_complete_comes_after_success_criteria_met_once_every_pod_is_counted():
    status = {"succeeded": 1, "startTime": rfc3339(T0)}
    plan = jobsync.sync(job(status), [pod(1, "Succeeded", tracked=False)], T0 + 5)
    assert types(plan) == {"SuccessCriteriaMet": ("True", "CompletionsReached",
                                                  "Reached expected number of succeeded pods"),
                           "Complete": ("True", "CompletionsReached", "Reached expected number of succeeded pods")}
    assert plan.status["completionTime"] == rfc3339(T0 + 5)
    assert ("Normal", "Completed", "Job completed") in plan.events


def test_backoff_limit_reached_fails_the_job_with_kubernetes_message():
    status = {"failed": 2, "startTime": rfc3339(T0)}
    plan = jobsync.sync(job(status, backoffLimit=2), [pod(3, "Failed", finished_at=T0)], T0 + 1)
    assert types(plan)["FailureTarget"] == ("True", *jobsync.BACKOFF_EXCEEDED)
    assert "Failed" not in types(plan)  # the pod is not counted yet
    later = jobsync.sync(job(plan.status, backoffLimit=2), [pod(3, "Failed", tracked=False)], T0 + 2)
    assert types(later)["Failed"] == ("True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    assert later.status["failed"] == 3 and later.create == []


@pytest.mark.parametrize("limit, restarts, fails", [
    pytest.param(2, 1, False, id="below"), pytest.param(2, 2, True, id="at-limit"),
    pytest.param(0, 1, True, id="zero-limit"), pytest.param(0, 0, False, id="zero-no-restart"),
])
def test_on_failure_restarts_count_against_the_backoff_limit(limit, restarts, fails):
    running = pod(1)
    running["status"]["containerStatuses"] = [{"name": "c", "restartCount": restarts}]
    spec = {"backoffLimit": limit, "template": {"spec": {"restartPolicy": "OnFailure", "containers": []}}}
    plan = jobsync.sync(job({"startTime": rfc3339(T0)}, **spec), [running], T0)
    assert ("FailureTarget" in types(plan)) == fails


def test_deadline_exceeded_deletes_active_pods_and_then_fails():
    status = {"startTime": rfc3339(T0)}
    early = jobsync.sync(job(status, activeDeadlineSeconds=30), [pod(1)], T0 + 10)
    assert early.requeue_after == pytest.approx(20) and "conditions" not in early.status
    late = jobsync.sync(job(status, activeDeadlineSeconds=30), [pod(1)], T0 + 30)
    assert types(late)["FailureTarget"] == ("True", "DeadlineExceeded", "Job was active longer than specified deadline")
    assert [p["metadata"]["uid"] for p in late.delete] == ["uid-1"]
    gone = jobsync.sync(job(late.status, activeDeadlineSeconds=30), [], T0 + 31)
    assert types(gone)["Failed"][1] == "DeadlineExceeded"


@pytest.mark.parametrize("failures, now, creates, requeue", [
    pytest.param(1, T0 + 5, [], 5.0, id="first-failure-10s"),
    pytest.param(1, T0 + 10, [None], None, id="after-10s"),
    pytest.param(3, T0 + 30, [], 10.0, id="third-failure-40s"),
    pytest.param(8, T0 + 300, [], 60.0, id="capped-at-six-minutes"),
])
def test_pod_failure_backoff(failures, now, creates, requeue):
    pods = [pod(i, "Failed", tracked=False, finished_at=T0) for i in range(failures)]
    plan = jobsync.sync(job({"failed": failures, "startTime": rfc3339(T0)}, backoffLimit=10), pods, now)
    assert plan.create == creates
    assert plan.requeue_after == (pytest.approx(requeue) if requeue else None)


def test_a_suspended_job_is_never_past_its_deadline():
    plan = jobsync.sync(job({"startTime": rfc3339(T0)}, activeDeadlineSeconds=5, suspend=True), [], T0 + 60)
    assert "FailureTarget" not in types(plan) and types(plan)["Suspended"][0] == "True"


def test_suspend_deletes_active_pods_and_resume_restarts_the_clock():
    suspended = jobsync.sync(job({"startTime": rfc3339(T0)}, suspend=True), [pod(1)], T0 + 5)
    assert types(suspended)["Suspended"] == ("True", "JobSuspended", "Job suspended")
    assert [p["metadata"]["uid"] for p in suspended.delete] == ["uid-1"] and suspended.create == []
    resumed = jobsync.sync(job(suspended.status), [], T0 + 50)
    assert types(resumed)["Suspended"] == ("False", "JobResumed", "Job resumed")
    assert resumed.status["startTime"] == rfc3339(T0 + 50) and resumed.create == [None]


def test_pod_failure_policy_fail_job_and_ignore():
    rules = {"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [42]}},
                       {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}
    ignored = jobsync.sync(job(podFailurePolicy=rules), [pod(1, "Failed", finished_at=T0, code=42)], T0)
    assert "uncountedTerminatedPods" not in ignored.status or not ignored.status["uncountedTerminatedPods"]
    assert ignored.untrack and ignored.create == [None]
    failing = jobsync.sync(job(podFailurePolicy=rules), [pod(2, "Failed", finished_at=T0, code=3)], T0)
    assert types(failing)["FailureTarget"] == ("True", "PodFailurePolicy", "Container c for pod default/pi-2 failed "
                                                                            "with exit code 3 matching FailJob rule "
                                                                            "at index 1")


def test_indexed_completion_and_success_policy():
    pods = [pod(1, "Succeeded", finished_at=T0, index=0), pod(2, "Succeeded", finished_at=T0, index=2)]
    plan = jobsync.sync(job(completionMode="Indexed", completions=3, parallelism=3), pods, T0)
    assert plan.status["completedIndexes"] == "0,2" and plan.status["succeeded"] == 2
    assert plan.create == [1]
    policy = {"rules": [{"succeededIndexes": "0-2", "succeededCount": 2}]}
    met = jobsync.sync(job(completionMode="Indexed", completions=3, parallelism=3, successPolicy=policy), pods, T0)
    assert types(met)["SuccessCriteriaMet"] == ("True", "SuccessPolicy", "Matched rules at index 0")


def test_indexed_pods_carry_their_index():
    made = pod_for(job(completionMode="Indexed", completions=3), 2)
    assert made["metadata"]["generateName"] == "pi-2-"
    assert made["metadata"]["labels"][batch.COMPLETION_INDEX] == "2"
    assert made["metadata"]["annotations"][batch.COMPLETION_INDEX] == "2"
    assert made["metadata"]["finalizers"] == [batch.TRACKING_FINALIZER]
    assert made["spec"]["hostname"] == "pi-2"
    assert made["spec"]["containers"][0]["env"] == [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}]
    assert made["metadata"]["ownerReferences"][0]["kind"] == "Job"


@pytest.mark.parametrize("ttl, condition, now, left", [
    pytest.param(None, "Complete", T0 + 100, None, id="no-ttl"),
    pytest.param(10, None, T0 + 100, None, id="not-finished"),
    pytest.param(10, "Complete", T0 + 4, 6.0, id="complete-waits"),
    pytest.param(10, "Failed", T0 + 12, -2.0, id="failed-expired"),
    pytest.param(0, "Complete", T0, 0.0, id="zero-at-once"),
])
def test_ttl_after_finished(ttl, condition, now, left):
    conditions = [{"type": condition, "status": "True", "lastTransitionTime": rfc3339(T0)}] if condition else []
    obj = job({"conditions": conditions}, **({"ttlSecondsAfterFinished": ttl} if ttl is not None else {}))
    assert expires_in(obj, now) == (pytest.approx(left) if left is not None else None)


def indexed_pod(n: int, index: int, phase: str, failures: int = 0, code: int | None = None, tracked=True) -> dict:
    made = pod(n, phase, tracked=tracked, finished_at=T0, index=index, code=code)
    made["metadata"]["annotations"][batch.INDEX_FAILURE_COUNT] = str(failures)
    return made


PER_INDEX = {"completionMode": "Indexed", "completions": 3, "parallelism": 3, "backoffLimitPerIndex": 1}


@pytest.mark.parametrize("spec, pods, now, failed_indexes, creates, condition", [
    pytest.param({}, [indexed_pod(1, 1, "Failed")], T0 + 1, "", [0, 2], None, id="first-failure-backs-off-its-index"),
    pytest.param({}, [indexed_pod(1, 1, "Failed")], T0 + 10, "", [0, 1, 2], None, id="retried-after-10s"),
    pytest.param({}, [indexed_pod(1, 1, "Failed", failures=1)], T0 + 60, "1", [0, 2], None,
                 id="past-the-limit-the-index-fails"),
    pytest.param({"maxFailedIndexes": 0}, [indexed_pod(1, 1, "Failed", failures=1)], T0, "1", [],
                 ("MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes"),
                 id="max-failed-indexes"),
    pytest.param({}, [indexed_pod(1, 0, "Succeeded"), indexed_pod(2, 1, "Failed", failures=1),
                      indexed_pod(3, 2, "Succeeded")], T0, "1", [], ("FailedIndexes", "Job has failed indexes"),
                 id="ended-with-a-failed-index"),
    pytest.param({"podFailurePolicy": {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In",
                                                                                         "values": [7]}}]}},
                 [indexed_pod(1, 2, "Failed", code=7)], T0 + 60, "2", [0, 1], None, id="fail-index-rule"),
])
def test_backoff_limit_per_index(spec, pods, now, failed_indexes, creates, condition):
    plan = jobsync.sync(job({"startTime": rfc3339(T0)}, **PER_INDEX, **spec), pods, now)
    assert plan.status["failedIndexes"] == failed_indexes
    assert plan.create == creates
    if condition:
        assert types(plan)["FailureTarget"] == ("True", *condition)
    else:
        assert "FailureTarget" not in types(plan)


def test_a_retried_index_carries_its_failure_count():
    plan = jobsync.sync(job({"startTime": rfc3339(T0)}, **PER_INDEX), [indexed_pod(1, 1, "Failed")], T0 + 10)
    assert plan.index_failures[1] == 1
    made = pod_for(job(**PER_INDEX), 1, plan.index_failures[1])
    assert made["metadata"]["annotations"][batch.INDEX_FAILURE_COUNT] == "1"
