"""The Job controller's decisions, pure (a Job, its pods and the time in; a Plan out), as Kubernetes'
syncJob makes them (job_controller.go, backoff_utils.go, indexed_job_utils.go, pod_failure_policy.go,
success_policy.go): count finished pods through `uncountedTerminatedPods` and the tracking
finalizer, the conditions and their reasons, the pods to create (after the failure back-off) or
delete. The actor (job.py) carries the Plan out."""
from __future__ import annotations

from dataclasses import dataclass, field

from actors.controllers import jobindexes
from actors.controllers.jobpods import (failure_rule, finish_time, finished, index_of, is_ready,
                                        succeeded, tracked)
from api import batch
from api.times import rfc3339, seconds

BACKOFF_BASE, BACKOFF_MAX = 10.0, 360.0  # DefaultJobPodFailureBackOff; the documented six-minute cap
MAX_UNCOUNTED = 500
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")


@dataclass
class Plan:
    status: dict
    create: list[int | None] = field(default_factory=list)  # completion indexes (None when NonIndexed)
    index_failures: dict[int, int] = field(default_factory=dict)  # a new pod's job-index-failure-count
    delete: list[dict] = field(default_factory=list)  # active pods to remove (finalizer first)
    untrack: list[dict] = field(default_factory=list)  # pods in uncountedTerminatedPods: finalizer off
    requeue_after: float | None = None
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)


def _condition(status: dict, type_: str, state: str, reason: str, message: str, now: float) -> bool:
    """Set a condition; True when it changed."""
    conditions = status.setdefault("conditions", [])
    current = next((c for c in conditions if c.get("type") == type_), None)
    if current and (current.get("status"), current.get("reason"), current.get("message")) == (state, reason, message):
        return False
    new = {"type": type_, "status": state, "reason": reason, "message": message,
           "lastProbeTime": rfc3339(now), "lastTransitionTime": rfc3339(now)}
    if current:
        conditions[conditions.index(current)] = new
    else:
        conditions.append(new)
    return True


def _has(status: dict, type_: str) -> dict | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == type_ and c.get("status") == "True"),
                None)


def _count(job: dict, pods: list[dict], status: dict, plan: Plan) -> None:
    """Finished pods with the finalizer enter uncountedTerminatedPods; those whose finalizer is gone
    (or whose pod is gone) leave it for the counters."""
    uncounted = status.setdefault("uncountedTerminatedPods", {})
    lists = {k: list(uncounted.get(k) or []) for k in ("succeeded", "failed")}
    by_uid = {p["metadata"]["uid"]: p for p in pods}
    indexed = job["spec"].get("completionMode") == "Indexed"
    completed = batch.parse_indexes(status.get("completedIndexes"))
    failed_indexes = batch.parse_indexes(status.get("failedIndexes"))
    for kind, uids in lists.items():
        for uid in list(uids):
            pod = by_uid.get(uid)
            if pod is None or not tracked(pod):
                uids.remove(uid)
                if kind == "failed" or not indexed:
                    status[kind] = status.get(kind, 0) + 1
            else:
                plan.untrack.append(pod)
    room = MAX_UNCOUNTED - len(lists["succeeded"]) - len(lists["failed"])
    for pod in pods:
        uid = pod["metadata"]["uid"]
        if room <= 0 or not tracked(pod) or not finished(pod) or uid in lists["succeeded"] or uid in lists["failed"]:
            continue
        kind = "succeeded" if succeeded(pod) else "failed"
        if kind == "failed" and failure_rule(job, pod) and failure_rule(job, pod)[0] == "Ignore":
            plan.untrack.append(pod)  # not counted: the policy ignores this failure
            continue
        lists[kind].append(uid)
        plan.untrack.append(pod)
        room -= 1
        if kind == "succeeded" and indexed and index_of(pod) is not None:
            completed.add(index_of(pod))
        elif kind == "failed" and jobindexes.per_index(job) and index_of(pod) is not None and \
                jobindexes.index_failed(job, pod):
            failed_indexes.add(index_of(pod))
    if jobindexes.per_index(job):
        status["failedIndexes"] = batch.format_indexes(failed_indexes)
    if indexed:
        completed = {i for i in completed if i < job["spec"].get("completions", 0)}
        status["completedIndexes"] = batch.format_indexes(completed)
        status["succeeded"] = len(completed)
    status["uncountedTerminatedPods"] = {k: v for k, v in lists.items() if v}


def _failure(job: dict, pods: list[dict], status: dict, now: float) -> tuple[str, str] | None:
    """Why the Job fails now, if it does: FailJob rule, backoff limit, deadline."""
    for pod in pods:
        if finished(pod) and not succeeded(pod) and tracked(pod):
            rule = failure_rule(job, pod)
            if rule and rule[0] == "FailJob":
                return "PodFailurePolicy", rule[1]
    if jobindexes.per_index(job) and jobindexes.failure(job, status):
        return jobindexes.failure(job, status)
    failed = status.get("failed", 0) + len((status.get("uncountedTerminatedPods") or {}).get("failed") or [])
    if failed > job["spec"].get("backoffLimit", batch.BACKOFF_LIMIT) or _restarts_past_limit(job, pods, failed):
        return BACKOFF_EXCEEDED
    deadline = job["spec"].get("activeDeadlineSeconds")
    if deadline is not None and status.get("startTime") and not job["spec"].get("suspend") and \
            now >= seconds(status["startTime"]) + deadline:  # pastActiveDeadline: never while suspended
        return DEADLINE_EXCEEDED
    return None


def _restarts_past_limit(job: dict, pods: list[dict], failed: int) -> bool:
    """pastBackoffLimitOnFailure: with restartPolicy OnFailure the running pods' restarts count as failures."""
    if ((job["spec"].get("template") or {}).get("spec") or {}).get("restartPolicy") != "OnFailure":
        return False
    restarts = failed + sum(c.get("restartCount", 0) for p in pods
                            if (p.get("status") or {}).get("phase") in ("Running", "Pending")
                            for c in (p["status"].get("initContainerStatuses") or []) +
                            (p["status"].get("containerStatuses") or []))
    limit = job["spec"].get("backoffLimit", batch.BACKOFF_LIMIT)
    return restarts > 0 if limit == 0 else restarts >= limit


def _success(job: dict, status: dict, active: int) -> tuple[str, str] | None:
    spec = job["spec"]
    done = _done(job, status)
    if spec.get("completionMode") == "Indexed":
        completed = batch.parse_indexes(status.get("completedIndexes"))
        for i, rule in enumerate((spec.get("successPolicy") or {}).get("rules") or []):
            wanted = batch.parse_indexes(rule["succeededIndexes"]) if rule.get("succeededIndexes") else None
            hits = completed & wanted if wanted is not None else completed
            need = rule.get("succeededCount") or (len(wanted) if wanted is not None else 0)
            if len(hits) >= need:
                return "SuccessPolicy", f"Matched rules at index {i}"
        return COMPLETIONS_REACHED if len(completed) >= spec.get("completions", 0) else None
    if spec.get("completions") is not None:
        return COMPLETIONS_REACHED if done >= spec["completions"] else None
    return COMPLETIONS_REACHED if done > 0 and active == 0 else None


def _counted_failure(job: dict, pod: dict) -> bool:
    if (pod.get("status") or {}).get("phase") != "Failed":
        return False
    rule = failure_rule(job, pod)
    return rule is None or rule[0] != "Ignore"


def backoff_until(job: dict, pods: list[dict]) -> float:
    """When pods may be created again: 10 s doubling per failure since the last success (failures the
    podFailurePolicy ignores aside), from the last failure's finish time, capped at six minutes."""
    last_success = max((finish_time(p) for p in pods if succeeded(p)), default=0.0)
    failures = sorted(finish_time(p) for p in pods if _counted_failure(job, p) and finish_time(p) > last_success)
    if not failures:
        return 0.0
    return failures[-1] + min(BACKOFF_BASE * 2 ** (len(failures) - 1), BACKOFF_MAX)


def _done(job: dict, status: dict) -> int:
    """Succeeded pods, counted or on their way (Indexed: the completed indexes)."""
    if job["spec"].get("completionMode") == "Indexed":
        return len(batch.parse_indexes(status.get("completedIndexes")))
    return status.get("succeeded", 0) + len((status.get("uncountedTerminatedPods") or {}).get("succeeded") or [])


def _want(job: dict, status: dict, active: list[dict]) -> int:
    spec = job["spec"]
    parallelism = spec.get("parallelism", 1)
    if spec.get("completions") is None:
        return len(active) if _done(job, status) > 0 else parallelism
    return max(0, min(parallelism, spec["completions"] - _done(job, status)))


def _manage(job: dict, pods: list[dict], active: list[dict], status: dict, plan: Plan, now: float) -> None:
    want = _want(job, status, active)
    if len(active) > want:
        ranked = sorted(active, key=lambda p: (is_ready(p), bool(p["spec"].get("nodeName")),
                                               (p.get("status") or {}).get("phase") == "Running"))
        plan.delete += ranked[:len(active) - want]
        return
    missing = want - len(active)
    if job["spec"].get("podReplacementPolicy") == "Failed":  # a terminating pod is replaced once it failed
        missing -= sum(1 for p in pods if p["metadata"].get("deletionTimestamp") and
                       (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))
    if missing <= 0:
        return
    if jobindexes.per_index(job):
        _create_per_index(job, pods, active, status, plan, now, missing)
        return
    until = backoff_until(job, pods)
    if until > now:
        plan.requeue_after = until - now
        return
    if job["spec"].get("completionMode") == "Indexed":
        taken = batch.parse_indexes(status.get("completedIndexes")) | {index_of(p) for p in active}
        free = [i for i in range(job["spec"]["completions"]) if i not in taken]
        plan.create += free[:missing]
    else:
        plan.create += [None] * missing


def _create_per_index(job: dict, pods: list[dict], active: list[dict], status: dict, plan: Plan, now: float,
                      missing: int) -> None:
    """The lowest free indexes (neither completed, failed nor running) whose own back-off has passed."""
    taken = batch.parse_indexes(status.get("completedIndexes")) | batch.parse_indexes(status.get("failedIndexes")) \
        | {index_of(p) for p in active}
    failures = jobindexes.failures_by_index(job, pods)
    for index in (i for i in range(job["spec"]["completions"]) if i not in taken):
        count, last = failures.get(index, (0, 0.0))
        until = last + min(BACKOFF_BASE * 2 ** (count - 1), BACKOFF_MAX) if count else 0.0
        if until > now:
            plan.requeue_after = min(plan.requeue_after or until - now, until - now)
        elif len(plan.create) < missing:
            plan.create.append(index)
            plan.index_failures[index] = count


def sync(job: dict, pods: list[dict], now: float) -> Plan:
    """What to do for this Job now (its pods: those it controls, finished ones included)."""
    status = dict(job.get("status") or {})
    status["conditions"] = [dict(c) for c in status.get("conditions") or []]
    plan = Plan(status)
    _count(job, pods, status, plan)
    active = [p for p in pods if not finished(p)]
    terminating = [p for p in pods if p["metadata"].get("deletionTimestamp") and
                   (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    if batch.finished({"status": status}):
        plan.delete = active  # a finished Job counts none active or terminating (the status rules)
        return _counts(plan, [], [])
    suspended = job["spec"].get("suspend")
    if not suspended and not status.get("startTime"):
        status["startTime"] = rfc3339(now)
    _suspension(job, status, plan, now)
    target = _has(status, "FailureTarget") or _has(status, "SuccessCriteriaMet")
    if target is None:
        failure = _failure(job, pods, status, now)
        success = None if failure else _success(job, status, len(active))
        if failure and _condition(status, "FailureTarget", "True", *failure, now):
            plan.events.append(("Warning", *failure))
        elif success:
            _condition(status, "SuccessCriteriaMet", "True", *success, now)
        target = _has(status, "FailureTarget") or _has(status, "SuccessCriteriaMet")
    if target is not None:
        _finish(status, target, active, terminating, plan, now)
    elif suspended:
        plan.delete = active
    else:
        _manage(job, pods, active, status, plan, now)
        _deadline_requeue(job, status, plan, now)
    return _counts(plan, active, terminating)


def _suspension(job: dict, status: dict, plan: Plan, now: float) -> None:
    if job["spec"].get("suspend"):
        if _condition(status, "Suspended", "True", "JobSuspended", "Job suspended", now):
            plan.events.append(("Normal", "Suspended", "Job suspended"))
    elif _has(status, "Suspended"):
        _condition(status, "Suspended", "False", "JobResumed", "Job resumed", now)
        status["startTime"] = rfc3339(now)  # the deadline counts again from the resume
        plan.events.append(("Normal", "Resumed", "Job resumed"))


def _finish(status: dict, target: dict, active: list[dict], terminating: list[dict], plan: Plan, now: float) -> None:
    """Active pods go; once none is left and every finished pod is counted, the terminal condition."""
    plan.delete = active
    if active or terminating or status.get("uncountedTerminatedPods"):
        return
    if target["type"] == "FailureTarget":
        _condition(status, "Failed", "True", target["reason"], target["message"], now)
    else:
        _condition(status, "Complete", "True", target["reason"], target["message"], now)
        status["completionTime"] = rfc3339(now)
        plan.events.append(("Normal", "Completed", "Job completed"))


def _deadline_requeue(job: dict, status: dict, plan: Plan, now: float) -> None:
    deadline = job["spec"].get("activeDeadlineSeconds")
    if deadline is not None and status.get("startTime"):
        left = seconds(status["startTime"]) + deadline - now
        plan.requeue_after = min(plan.requeue_after or left, left)


def _counts(plan: Plan, active: list[dict], terminating: list[dict]) -> Plan:
    going = {p["metadata"]["uid"] for p in plan.delete} if active or terminating else set()
    status = plan.status
    status["active"] = len([p for p in active if p["metadata"]["uid"] not in going])
    status["ready"] = len([p for p in active if p["metadata"]["uid"] not in going and is_ready(p)])
    status["terminating"] = len(terminating) + len(going)
    for key in ("succeeded", "failed"):
        status.setdefault(key, 0)
    if not status.get("conditions"):
        status.pop("conditions", None)
    return plan
