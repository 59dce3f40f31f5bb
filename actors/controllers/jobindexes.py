"""backoffLimitPerIndex (Kubernetes' indexed_job_utils.go): each index counts its own failures in the
`batch.kubernetes.io/job-index-failure-count` annotation of its pods; an index whose failures pass
the limit, or whose pod matched a FailIndex rule, is failed and never retried; too many failed indexes
fail the Job, and so does an end with some indexes failed."""
from __future__ import annotations

from actors.controllers.jobpods import failure_rule, finish_time, index_of
from api import batch

MAX_FAILED_INDEXES = ("MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes")
FAILED_INDEXES = ("FailedIndexes", "Job has failed indexes")


def per_index(job: dict) -> bool:
    return job["spec"].get("backoffLimitPerIndex") is not None and job["spec"].get("completionMode") == "Indexed"


def failure_count(pod: dict) -> int:
    value = (pod["metadata"].get("annotations") or {}).get(batch.INDEX_FAILURE_COUNT, "0")
    return int(value) if value.isdigit() else 0


def index_failed(job: dict, pod: dict) -> bool:
    """Whether this failed pod's failure fails its index."""
    rule = failure_rule(job, pod)
    return bool(rule and rule[0] == "FailIndex") or failure_count(pod) + 1 > job["spec"]["backoffLimitPerIndex"]


def failures_by_index(job: dict, pods: list[dict]) -> dict[int, tuple[int, float]]:
    """Each index's failures so far and when its last failed pod finished (ignored failures aside)."""
    out: dict[int, tuple[int, float]] = {}
    for pod in pods:
        index = index_of(pod)
        rule = failure_rule(job, pod)
        if index is None or (pod.get("status") or {}).get("phase") != "Failed" or (rule and rule[0] == "Ignore"):
            continue
        count = failure_count(pod) + 1
        if index not in out or count > out[index][0]:
            out[index] = (count, finish_time(pod))
    return out


def failure(job: dict, status: dict) -> tuple[str, str] | None:
    failed = batch.parse_indexes(status.get("failedIndexes"))
    limit = job["spec"].get("maxFailedIndexes")
    if limit is not None and len(failed) > limit:
        return MAX_FAILED_INDEXES
    completed = batch.parse_indexes(status.get("completedIndexes"))
    if failed and len(failed | completed) >= job["spec"].get("completions", 0):
        return FAILED_INDEXES
    return None
