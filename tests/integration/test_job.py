"""Jobs on hollow nodes (the simulated runtime's annotations make each pod exit with a code after a
time): completions with parallelism, Indexed pods, the backoff limit, the deadline, suspend and resume,
the tracking finalizer removed, and the Job's pods collected with it."""
from __future__ import annotations

import time

import pytest

from api import batch
from api.status import StatusError
from api.times import seconds
from testkit.waiting import wait_until

RUN, EXIT = "kubus.io/simulated-run-seconds", "kubus.io/simulated-exit-code"


pytestmark = pytest.mark.shared_plane  # one plane for the module (hollow nodes, controllers), a namespace per test
PLANE_ACTORS = [("actors.controllers", "job"), ("actors.controllers", "gc"), ("actors.controllers", "ttlafterfinished")]


@pytest.fixture
def jobs(apps):
    """`apps` on the module's plane, with the Job controller, the GC and the TTL controller (PLANE_ACTORS)."""
    return apps


def job(name: str, run: float | None = 0.5, code: int = 0, **spec) -> dict:
    notes = {RUN: str(run), EXIT: str(code)} if run is not None else {}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"metadata": {"annotations": notes},
                                  "spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox"}]}}, **spec}}


def pods_of(client, name: str) -> list[dict]:
    return client.list("Pod", client.namespace, label_selector=f"{batch.JOB_NAME}={name}").items


def most_at_once(pods: list[dict]) -> int:
    """The most pods alive at one moment, from their creation and their container's finish."""
    edges = []
    for pod in pods:
        finished = pod["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"]
        edges += [(seconds(pod["metadata"]["creationTimestamp"]), 1), (seconds(finished), -1)]
    alive = peak = 0
    for _, step in sorted(edges, key=lambda e: (e[0], e[1])):  # a finish before a start at the same second
        alive += step
        peak = max(peak, alive)
    return peak


def finished_as(client, name: str, type_: str, timeout: float = 60) -> dict:
    def done():
        obj = client.get("Job", name)
        return obj if batch.condition(obj, type_) else None
    return wait_until(done, timeout, what=f"job {name} {type_}")


@pytest.mark.parametrize("spec, condition, reason, message, counts", [
    pytest.param({"completions": 5, "parallelism": 2}, "Complete", "CompletionsReached",
                 "Reached expected number of succeeded pods", {"succeeded": 5, "failed": 0}, id="5-by-2"),
    pytest.param({"backoffLimit": 1, "code": 1}, "Failed", "BackoffLimitExceeded",
                 "Job has reached the specified backoff limit", {"succeeded": 0, "failed": 2}, id="backoff-limit"),
    pytest.param({"activeDeadlineSeconds": 2, "run": None}, "Failed", "DeadlineExceeded",
                 "Job was active longer than specified deadline", {"succeeded": 0, "active": 0}, id="deadline"),
    pytest.param({"completionMode": "Indexed", "completions": 2, "parallelism": 2, "backoffLimitPerIndex": 0,
                  "code": 1}, "Failed", "FailedIndexes", "Job has failed indexes",
                 {"failed": 2, "failedIndexes": "0,1"}, id="per-index"),
])
def test_a_job_finishes_with_kubernetes_condition(jobs, spec, condition, reason, message, counts):
    jobs.create(job("work", **spec))
    done = finished_as(jobs, "work", condition)
    terminal = batch.condition(done, condition)
    assert (terminal["reason"], terminal["message"]) == (reason, message)
    interim = "SuccessCriteriaMet" if condition == "Complete" else "FailureTarget"
    assert batch.condition(done, interim)["reason"] == reason
    assert {k: done["status"].get(k, 0) for k in counts} == counts
    assert not done["status"].get("uncountedTerminatedPods")
    wait_until(lambda: all(batch.TRACKING_FINALIZER not in (p["metadata"].get("finalizers") or [])
                           for p in pods_of(jobs, "work")), 30, what="every tracking finalizer removed")
    if condition == "Complete":
        assert done["status"]["completionTime"] >= done["status"]["startTime"]
        pods = pods_of(jobs, "work")
        assert len([p for p in pods if p["status"].get("phase") == "Succeeded"]) == 5
        assert most_at_once(pods) <= spec["parallelism"]
        reasons = {e["reason"] for e in jobs.list("Event", jobs.namespace).items
                   if e["involvedObject"]["name"] == "work"}
        assert {"SuccessfulCreate", "Completed"} <= reasons


def test_indexed_pods_see_their_index(jobs):
    jobs.create(job("idx", completions=3, parallelism=3, completionMode="Indexed"))
    done = finished_as(jobs, "idx", "Complete")
    assert done["status"]["completedIndexes"] == "0-2" and done["status"]["succeeded"] == 3
    pods = sorted(pods_of(jobs, "idx"), key=lambda p: p["metadata"]["annotations"][batch.COMPLETION_INDEX])
    assert [p["spec"]["hostname"] for p in pods] == ["idx-0", "idx-1", "idx-2"]
    assert [p["metadata"]["labels"][batch.COMPLETION_INDEX] for p in pods] == ["0", "1", "2"]
    assert all(p["metadata"]["name"].startswith(f"idx-{i}-") for i, p in enumerate(pods))
    assert all(p["spec"]["containers"][0]["env"] == [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}] for p in pods)


def test_suspend_holds_pods_back_until_resumed(jobs):
    jobs.create(job("later", suspend=True))
    held = wait_until(lambda: batch.condition(jobs.get("Job", "later"), "Suspended"), 30,
                      what="the Suspended condition")
    assert (held["reason"], held["message"]) == ("JobSuspended", "Job suspended")
    assert pods_of(jobs, "later") == []
    jobs.patch("Job", "later", {"spec": {"suspend": False}})
    done = finished_as(jobs, "later", "Complete")
    resumed = next(c for c in done["status"]["conditions"] if c["type"] == "Suspended")
    assert (resumed["status"], resumed["reason"], resumed["message"]) == ("False", "JobResumed", "Job resumed")


def test_a_finished_job_is_deleted_after_its_ttl_with_its_pods(jobs):
    jobs.create(job("brief", ttlSecondsAfterFinished=2))
    done = finished_as(jobs, "brief", "Complete")
    assert pods_of(jobs, "brief")

    def gone() -> bool:
        try:
            jobs.get("Job", "brief")
            return False
        except StatusError as exc:
            return exc.reason == "NotFound"
    wait_until(gone, 30, what="the Job deleted after its TTL")
    assert pods_of(jobs, "brief") == []  # foreground: the pods went first
    finish = seconds(batch.condition(done, "Complete")["lastTransitionTime"])
    assert time.time() >= finish + 2


def test_deleting_a_job_collects_its_running_pods(jobs):
    jobs.create(job("gone", run=None, parallelism=2, completions=2))
    wait_until(lambda: len([p for p in pods_of(jobs, "gone") if p["status"].get("phase") == "Running"]) == 2, 60,
               what="two running pods")
    jobs.delete("Job", "gone")
    wait_until(lambda: pods_of(jobs, "gone") == [], 60, what="the Job's pods collected, finalizers and all")
    with pytest.raises(StatusError):
        jobs.get("Job", "gone")
