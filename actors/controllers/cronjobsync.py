"""The CronJob controller's decisions (Kubernetes' cronjob_controllerv2 `syncCronJob` and
`cleanupFinishedJobs`), pure: given a CronJob, the Jobs it controls and the time, a Plan — the
status, the events, the Job to create for the latest unmet scheduled time, the Jobs to delete
(Replace, history limits) and when to look again. `actors/controllers/cronjob.py` carries it out."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from email.utils import format_datetime
from zoneinfo import ZoneInfo

from api import batch, cron, cronjob
from api.times import rfc3339, seconds

NEXT_SCHEDULE_DELTA = 0.1  # Kubernetes requeues 100 ms after the next scheduled time
MANY_MISSED = 100
Event = tuple[str, str, str]  # type, reason, message


@dataclass
class Plan:
    status: dict
    events: list[Event] = field(default_factory=list)
    create: dict | None = None  # the Job for `scheduled`
    scheduled: float | None = None
    delete: list[dict] = field(default_factory=list)
    requeue_after: float | None = None


def _utc(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def job_ref(job: dict) -> dict:
    """getRef: the ObjectReference status.active holds."""
    meta = job["metadata"]
    return {"kind": "Job", "namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"],
            "apiVersion": "batch/v1", "resourceVersion": meta.get("resourceVersion")}


def _earliest(cj: dict, now: float, with_deadline: bool) -> float:
    status = cj.get("status") or {}
    earliest = seconds(status.get("lastScheduleTime") or cj["metadata"].get("creationTimestamp"))
    deadline = cj["spec"].get("startingDeadlineSeconds")
    if with_deadline and deadline is not None:
        earliest = max(earliest, now - deadline)
    return earliest


def most_recent(schedule: cron.Schedule, zone: tzinfo, earliest: float, now: float) -> tuple[float | None, int]:
    """mostRecentScheduleTime: the latest scheduled time in (earliest, now] and, roughly, how many were
    missed (Kubernetes' estimate from the gap between the first two)."""
    def nxt(t: float) -> float | None:
        found = schedule.next(_utc(t), zone)
        return found.timestamp() if found else None

    t1 = nxt(earliest)
    if t1 is None or now < t1:
        return None, 0
    t2 = nxt(t1)
    if t2 is None or now < t2:
        return t1, 1
    gap = round(t2 - t1)
    if gap < 1:
        return None, 0
    missed = int(now - t1) // gap + 1
    latest, t = None, nxt(t1 + (missed - 2) * gap)
    while t is not None and t <= now:
        latest, t = t, nxt(t)
    return latest, missed


def zone_of(cj: dict, schedule: cron.Schedule, local: tzinfo) -> tzinfo:
    name = cj["spec"].get("timeZone") or schedule.zone
    return ZoneInfo(name) if name else local


def go_rfc3339(t: datetime) -> str:
    """Go's time.RFC3339: `Z` for UTC, else the offset."""
    text = t.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def job_for(cj: dict, scheduled: float, zone: tzinfo) -> dict:
    """getJobFromTemplate2: the template's labels, annotations and spec, the fixed name, the scheduled
    time annotation (RFC 3339 in the CronJob's zone) and the controller reference."""
    template = cj["spec"].get("jobTemplate") or {}
    meta = template.get("metadata") or {}
    annotations = dict(meta.get("annotations") or {})
    annotations[cronjob.SCHEDULED_TIMESTAMP] = go_rfc3339(_utc(scheduled).astimezone(zone))
    owner = cj["metadata"]
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": cronjob.job_name(owner["name"], scheduled), "namespace": owner["namespace"],
                         "labels": dict(meta.get("labels") or {}), "annotations": annotations,
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": owner["name"],
                                              "uid": owner["uid"], "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": copy.deepcopy(template.get("spec") or {})}


def _reconcile_active(cj: dict, jobs: list[dict], status: dict, events: list[Event]) -> None:
    """Active refs follow the Jobs: finished ones leave (SawCompletedJob), vanished ones too
    (MissingJob), unknown running ones are reported (UnexpectedJob); lastSuccessfulTime follows the
    latest completion."""
    active = {r.get("uid"): r for r in status.get("active") or []}
    for job in jobs:
        uid, done = job["metadata"]["uid"], batch.finished(job)
        if uid not in active and not done:
            events.append(("Warning", "UnexpectedJob",
                           f"Saw a job that the controller did not create or forgot: {job['metadata']['name']}"))
        elif uid in active and done:
            del active[uid]
            events.append(("Normal", "SawCompletedJob", f"Saw completed job: {job['metadata']['name']}, "
                                                        f"status: {done}"))
        if done == "Complete":
            completed = (job.get("status") or {}).get("completionTime")
            last = status.get("lastSuccessfulTime")
            if completed and (not last or seconds(completed) > seconds(last)):
                status["lastSuccessfulTime"] = completed
    present = {j["metadata"]["uid"] for j in jobs}
    for uid in [u for u in active if u not in present]:
        events.append(("Normal", "MissingJob", f"Active job went missing: {active.pop(uid).get('name')}"))
    if active:
        status["active"] = list(active.values())
    else:
        status.pop("active", None)


def _history(cj: dict, jobs: list[dict], plan: Plan) -> None:
    """cleanupFinishedJobs: beyond each limit, the finished Jobs that started first go."""
    spec = cj["spec"]
    for outcome, limit in (("Complete", spec.get("successfulJobsHistoryLimit")),
                           ("Failed", spec.get("failedJobsHistoryLimit"))):
        if limit is None:
            continue
        done = [j for j in jobs if batch.finished(j) == outcome and j not in plan.delete]
        done.sort(key=lambda j: (not (j.get("status") or {}).get("startTime"),
                                 seconds((j.get("status") or {}).get("startTime")), j["metadata"]["name"]))
        plan.delete += done[:max(len(done) - limit, 0)]


def sync(cj: dict, jobs: list[dict], now: float, local: tzinfo = timezone.utc) -> Plan:
    """One pass of syncCronJob and cleanupFinishedJobs over the Jobs the CronJob controls."""
    status = copy.deepcopy(cj.get("status") or {})
    plan = Plan(status)
    _reconcile_active(cj, jobs, status, plan.events)
    if cj["metadata"].get("deletionTimestamp"):
        return plan
    _history(cj, jobs, plan)
    _schedule(cj, now, local, plan)
    return plan


def _schedule(cj: dict, now: float, local: tzinfo, plan: Plan) -> None:
    spec, status = cj["spec"], plan.status
    if spec.get("timeZone") is not None:
        try:
            ZoneInfo(spec["timeZone"])
        except (ValueError, KeyError, OSError) as exc:
            plan.events.append(("Warning", "UnknownTimeZone", f'invalid timeZone: "{spec["timeZone"]}": {exc}'))
            return
    if spec.get("suspend"):
        return
    try:
        schedule = cron.parse(spec.get("schedule") or "")
    except cron.CronError as exc:
        plan.events.append(("Warning", "UnparseableSchedule", f'unparseable schedule: "{spec.get("schedule")}" : '
                                                              f"{exc}"))
        return
    zone = zone_of(cj, schedule, local)
    after = schedule.next(_utc(now), zone)
    plan.requeue_after = after.timestamp() - now + NEXT_SCHEDULE_DELTA if after else None
    scheduled, missed = most_recent(schedule, zone, _earliest(cj, now, True), now)
    if scheduled is None:
        return
    if missed > MANY_MISSED:
        plan.events.append(("Warning", "TooManyMissedTimes", f"too many missed start times: {missed}. Set or "
                            "decrease .spec.startingDeadlineSeconds or check clock skew"))
    deadline = spec.get("startingDeadlineSeconds")
    if deadline is not None and scheduled + deadline < now:
        plan.events.append(("Warning", "MissSchedule", "Missed scheduled time to start a job: "
                            + format_datetime(_utc(scheduled))))
        return
    name = cronjob.job_name(cj["metadata"]["name"], scheduled)
    if any(r.get("name") == name for r in status.get("active") or []) or \
            status.get("lastScheduleTime") == rfc3339(scheduled):
        return
    policy = spec.get("concurrencyPolicy", "Allow")
    if policy == "Forbid" and status.get("active"):
        plan.events.append(("Normal", "JobAlreadyActive", "Not starting job because prior execution is running "
                                                          "and concurrency policy is Forbid"))
        return
    if policy == "Replace":
        plan.delete += [{"metadata": {"namespace": cj["metadata"]["namespace"], "name": r.get("name"),
                                      "uid": r.get("uid")}} for r in status.get("active") or []]
        status.pop("active", None)
    plan.create, plan.scheduled = job_for(cj, scheduled, zone), scheduled
