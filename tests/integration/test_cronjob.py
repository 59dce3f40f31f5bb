"""CronJobs on hollow nodes, the CronJob controller reading time 60 times faster (`--time-scale 60`:
`*/1 * * * *` fires every second): Jobs named by their minute, the history limits kept, Forbid holding
back while one runs, and its Jobs collected with it; a ReplicationController keeping its pods."""
from __future__ import annotations

import pytest

from api import cronjob
from tests.integration.test_job import RUN, EXIT
from testkit.waiting import wait_until


pytestmark = pytest.mark.shared_plane  # one plane for the module (hollow nodes, controllers), a namespace per test
PLANE_ACTORS = [("actors.controllers", "job"), ("actors.controllers", "gc"),
                ("actors.controllers", "cronjob", "--time-scale", "60"), ("actors.controllers", "replication")]


@pytest.fixture
def crons(apps):
    """`apps` on the module's plane, with the Job, GC and CronJob (time 60 times faster) controllers."""
    return apps


def cron_job(name: str, run: float | None = 0.2, **spec) -> dict:
    notes = {RUN: str(run), EXIT: "0"} if run is not None else {}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"schedule": "*/1 * * * *", **spec, "jobTemplate": {"spec": {"template": {
                "metadata": {"annotations": notes},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}


def owned_jobs(client, cj: dict) -> list[dict]:
    uid = cj["metadata"]["uid"]
    return [j for j in client.list("Job", client.namespace).items
            if any(r.get("uid") == uid for r in j["metadata"].get("ownerReferences") or [])]


def reasons(client, name: str) -> list[str]:
    return [e["reason"] for e in client.list("Event", client.namespace).items
            if e["involvedObject"]["kind"] == "CronJob" and e["involvedObject"]["name"] == name]


def finished(job: dict, type_: str) -> bool:
    return any(c["type"] == type_ and c["status"] == "True" for c in (job.get("status") or {}).get("conditions") or [])


def test_a_cronjob_makes_jobs_each_minute_and_keeps_its_history_limit(crons):
    made = crons.create(cron_job("tick", successfulJobsHistoryLimit=2))
    wait_until(lambda: reasons(crons, "tick").count("SuccessfulDelete") >= 3, 60, what="three Jobs past the limit")
    wait_until(lambda: len([j for j in owned_jobs(crons, made) if finished(j, "Complete")]) == 2, 30,
               what="two finished Jobs kept")
    jobs = owned_jobs(crons, made)
    minutes = [int(j["metadata"]["name"].rsplit("-", 1)[1]) for j in jobs]
    assert all(j["metadata"]["name"].startswith("tick-") for j in jobs) and len(set(minutes)) == len(minutes)
    for job in jobs:
        stamp = job["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP]
        assert stamp.endswith(":00Z")
        assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    status = crons.get("CronJob", "tick")["status"]
    assert status["lastScheduleTime"] and status["lastSuccessfulTime"]
    assert reasons(crons, "tick").count("SuccessfulCreate") >= 5
    assert "SawCompletedJob" in reasons(crons, "tick") and "UnexpectedJob" not in reasons(crons, "tick")


def test_forbid_holds_back_while_a_job_runs(crons):
    made = crons.create(cron_job("single", run=None, concurrencyPolicy="Forbid"))
    wait_until(lambda: "JobAlreadyActive" in reasons(crons, "single"), 30, what="a run held back")
    jobs = owned_jobs(crons, made)
    assert len(jobs) == 1
    active = crons.get("CronJob", "single")["status"]["active"]
    assert [a["name"] for a in active] == [jobs[0]["metadata"]["name"]]
    crons.delete("CronJob", "single")
    wait_until(lambda: owned_jobs(crons, made) == [], 30, what="the CronJob's Job collected with it")


def test_a_replication_controller_keeps_three_pods(apps):  # the ReplicationController's controller: PLANE_ACTORS
    apps.create({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
                 "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "rc"}},
                                                      "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})

    def pods() -> list[dict]:
        return [p for p in apps.list("Pod", apps.namespace, label_selector="app=rc").items
                if not p["metadata"].get("deletionTimestamp")]
    wait_until(lambda: apps.get("ReplicationController", "rc").get("status", {}).get("readyReplicas") == 3,
               60, what="three ready replicas")
    first = pods()
    assert len(first) == 3
    assert all(p["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController" for p in first)
    apps.delete("Pod", first[0]["metadata"]["name"])
    wait_until(lambda: len(pods()) == 3 and first[0]["metadata"]["name"] not in
               {p["metadata"]["name"] for p in pods()}, 60, what="the deleted pod replaced")
    apps.patch("ReplicationController", "rc", {"spec": {"replicas": 1}})
    wait_until(lambda: len(pods()) == 1, 60, what="scaled down to one")
