"""The CronJob controller's decisions (actors/controllers/cronjobsync.py) on a fake clock: the latest
unmet time, the starting deadline, too many missed, concurrency policies, names, annotations, status
and history limits."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from actors.controllers import cronjobsync
from api import cronjob
from api.times import rfc3339

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp()  # 28401120 minutes since the epoch


def cj(schedule="*/1 * * * *", status=None, created=T0, **spec) -> dict:
    meta = {"name": "hello", "namespace": "default", "uid": "cj-uid", "creationTimestamp": rfc3339(created)}
    obj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta,
           "spec": {"schedule": schedule, "jobTemplate": {"metadata": {"labels": {"app": "x"}},
                                                          "spec": {"template": {"spec": {"containers": []}}}},
                    **spec},
           "status": status or {}}
    cronjob.defaults(obj)
    return obj


def job(name: str, uid: str, outcome: str | None = None, start: float = T0, done: float | None = None) -> dict:
    status: dict = {"startTime": rfc3339(start)}
    if outcome:
        status["conditions"] = [{"type": outcome, "status": "True"}]
        if outcome == "Complete":
            status["completionTime"] = rfc3339(done or start + 5)
    return {"metadata": {"name": name, "namespace": "default", "uid": uid,
                         "ownerReferences": [{"kind": "CronJob", "uid": "cj-uid", "controller": True}]},
            "status": status}


def reasons(plan) -> list[str]:
    return [r for _, r, _ in plan.events]


def test_the_first_minute_makes_a_job_named_by_its_minute_with_the_annotation_and_owner():
    plan = cronjobsync.sync(cj(), [], T0 + 61)
    made = plan.create
    assert made["metadata"]["name"] == "hello-28401121"
    assert made["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP] == "2024-01-01T00:01:00Z"
    assert made["metadata"]["labels"] == {"app": "x"}
    assert made["metadata"]["ownerReferences"][0] == {"apiVersion": "batch/v1", "kind": "CronJob", "name": "hello",
                                                      "uid": "cj-uid", "controller": True, "blockOwnerDeletion": True}
    assert plan.scheduled == T0 + 60
    assert plan.requeue_after == pytest.approx(59.1)


def test_nothing_before_the_first_time_but_a_timer_for_it():
    plan = cronjobsync.sync(cj(), [], T0 + 30)
    assert plan.create is None and plan.requeue_after == pytest.approx(30.1)


def test_a_time_already_handled_is_skipped():
    plan = cronjobsync.sync(cj(status={"lastScheduleTime": rfc3339(T0 + 60)}), [], T0 + 90)
    assert plan.create is None


def test_only_the_latest_missed_time_runs():
    plan = cronjobsync.sync(cj(), [], T0 + 10 * 60 + 5)
    assert plan.scheduled == T0 + 600 and reasons(plan) == []


def test_more_than_100_missed_warns_and_still_runs_the_latest():
    plan = cronjobsync.sync(cj(), [], T0 + 200 * 60 + 5)
    assert plan.scheduled == T0 + 200 * 60
    assert plan.events == [("Warning", "TooManyMissedTimes", "too many missed start times: 200. Set or decrease "
                            ".spec.startingDeadlineSeconds or check clock skew")]


def test_the_starting_deadline_bounds_the_missed_count_and_misses_a_late_start():
    plan = cronjobsync.sync(cj(startingDeadlineSeconds=300), [], T0 + 200 * 60 + 5)
    assert plan.scheduled == T0 + 200 * 60 and reasons(plan) == []
    late = cronjobsync.sync(cj("0 * * * *", startingDeadlineSeconds=10), [], T0 + 3600 + 30)
    assert late.create is None  # 01:00 was 30 s ago, before the 10 s window: nothing is due


def test_a_start_within_the_deadline_still_runs():
    plan = cronjobsync.sync(cj("0 * * * *", startingDeadlineSeconds=10,
                               status={"lastScheduleTime": rfc3339(T0)}), [], T0 + 3600 + 5)
    assert plan.scheduled == T0 + 3600  # 5 s late, within 10
    schedule = cronjobsync.cron.parse("0 * * * *")
    latest, _ = cronjobsync.most_recent(schedule, timezone.utc, T0, T0 + 3600 + 30)
    assert latest == T0 + 3600


def test_forbid_skips_while_a_job_is_active():
    running = job("hello-28401121", "j1")
    status = {"active": [cronjobsync.job_ref(running)], "lastScheduleTime": rfc3339(T0 + 60)}
    plan = cronjobsync.sync(cj(concurrencyPolicy="Forbid", status=status), [running], T0 + 125)
    assert plan.create is None
    assert plan.events == [("Normal", "JobAlreadyActive", "Not starting job because prior execution is running "
                            "and concurrency policy is Forbid")]


def test_replace_deletes_the_active_job_and_makes_the_new_one():
    running = job("hello-28401121", "j1")
    status = {"active": [cronjobsync.job_ref(running)], "lastScheduleTime": rfc3339(T0 + 60)}
    plan = cronjobsync.sync(cj(concurrencyPolicy="Replace", status=status), [running], T0 + 125)
    assert [j["metadata"]["uid"] for j in plan.delete] == ["j1"]
    assert plan.create["metadata"]["name"] == "hello-28401122" and "active" not in plan.status


def test_allow_runs_alongside():
    running = job("hello-28401121", "j1")
    status = {"active": [cronjobsync.job_ref(running)], "lastScheduleTime": rfc3339(T0 + 60)}
    plan = cronjobsync.sync(cj(status=status), [running], T0 + 125)
    assert plan.create["metadata"]["name"] == "hello-28401122" and plan.status["active"][0]["uid"] == "j1"


def test_a_finished_job_leaves_active_and_sets_last_successful_time():
    done = job("hello-28401121", "j1", "Complete", start=T0 + 60, done=T0 + 70)
    status = {"active": [cronjobsync.job_ref(done)], "lastScheduleTime": rfc3339(T0 + 60)}
    plan = cronjobsync.sync(cj(status=status), [done], T0 + 90)
    assert "active" not in plan.status and plan.status["lastSuccessfulTime"] == rfc3339(T0 + 70)
    assert plan.events == [("Normal", "SawCompletedJob", "Saw completed job: hello-28401121, status: Complete")]


def test_a_vanished_active_job_is_reported_missing_and_an_unknown_one_unexpected():
    status = {"active": [{"name": "hello-1", "uid": "gone"}], "lastScheduleTime": rfc3339(T0 + 60)}
    plan = cronjobsync.sync(cj(status=status), [job("hello-2", "stray")], T0 + 90)
    assert sorted(plan.events) == [("Normal", "MissingJob", "Active job went missing: hello-1"),
                                   ("Warning", "UnexpectedJob",
                                    "Saw a job that the controller did not create or forgot: hello-2")]


def test_history_keeps_the_newest_within_the_limits():
    jobs = [job(f"ok-{i}", f"ok{i}", "Complete", start=T0 + i) for i in range(5)]
    jobs += [job(f"bad-{i}", f"bad{i}", "Failed", start=T0 + i) for i in range(3)]
    plan = cronjobsync.sync(cj(status={"lastScheduleTime": rfc3339(T0 + 60)}), jobs, T0 + 90)
    assert sorted(j["metadata"]["name"] for j in plan.delete) == ["bad-0", "bad-1", "ok-0", "ok-1"]


@pytest.mark.parametrize("spec, event", [
    ({"suspend": True}, None),
    ({"schedule": "61 * * * *"}, ("Warning", "UnparseableSchedule",
                                  'unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61')),
])
def test_suspended_or_unparsable_makes_nothing(spec, event):
    plan = cronjobsync.sync(cj(**spec), [], T0 + 600)
    assert plan.create is None and plan.requeue_after is None
    assert plan.events == ([event] if event else [])


def test_the_time_zone_sets_the_wall_clock_and_the_annotation():
    plan = cronjobsync.sync(cj("0 9 * * *", timeZone="Asia/Tokyo"), [], T0 + 86400)
    assert plan.scheduled == T0 + 86400  # 09:00 in Tokyo is 00:00 UTC
    assert plan.create["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP] == "2024-01-02T09:00:00+09:00"
