"""Job (batch/v1): the model, its keys (labels, annotation, finalizer), SetDefaults_Job, and the
selector the apiserver generates from the Job's UID (`generateSelector`). Validation is
`api/batch_validation.py`; the controller is `actors/controllers/job.py`."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.meta import Condition, K8sModel, LabelSelector, Resource
from api.pod import PodTemplateSpec

JOB_NAME = "batch.kubernetes.io/job-name"
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
LEGACY_JOB_NAME, LEGACY_CONTROLLER_UID = "job-name", "controller-uid"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
INDEX_ENV = "JOB_COMPLETION_INDEX"
MANAGED_BY = "kubernetes.io/job-controller"  # spec.managedBy's reserved value: this controller
BACKOFF_LIMIT = 6
MAX_INT32 = 2147483647


class PodFailurePolicyOnExitCodes(K8sModel):
    containerName: str | None = None
    operator: Literal["In", "NotIn"]
    values: list[int]


class PodFailurePolicyOnPodCondition(K8sModel):
    type: str
    status: str | None = None


class PodFailurePolicyRule(K8sModel):
    action: Literal["FailJob", "FailIndex", "Ignore", "Count"]
    onExitCodes: PodFailurePolicyOnExitCodes | None = None
    onPodConditions: list[PodFailurePolicyOnPodCondition] | None = None


class PodFailurePolicy(K8sModel):
    rules: list[PodFailurePolicyRule]


class SuccessPolicyRule(K8sModel):
    succeededIndexes: str | None = None
    succeededCount: int | None = None


class SuccessPolicy(K8sModel):
    rules: list[SuccessPolicyRule]


class JobSpec(K8sModel):
    parallelism: int | None = None
    completions: int | None = None
    activeDeadlineSeconds: int | None = None
    podFailurePolicy: PodFailurePolicy | None = None
    successPolicy: SuccessPolicy | None = None
    backoffLimit: int | None = None
    backoffLimitPerIndex: int | None = None
    maxFailedIndexes: int | None = None
    selector: LabelSelector | None = None
    manualSelector: bool | None = None
    template: PodTemplateSpec
    ttlSecondsAfterFinished: int | None = None
    completionMode: Literal["NonIndexed", "Indexed"] | None = None
    suspend: bool | None = None
    podReplacementPolicy: Literal["TerminatingOrFailed", "Failed"] | None = None
    managedBy: str | None = None


class UncountedTerminatedPods(K8sModel):
    succeeded: list[str] | None = None
    failed: list[str] | None = None


class JobStatus(K8sModel):
    conditions: list[Condition] | None = None
    startTime: str | None = None
    completionTime: str | None = None
    active: int | None = Field(None, ge=0)
    succeeded: int | None = Field(None, ge=0)
    failed: int | None = Field(None, ge=0)
    terminating: int | None = Field(None, ge=0)
    completedIndexes: str | None = None
    failedIndexes: str | None = None
    uncountedTerminatedPods: UncountedTerminatedPods | None = None
    ready: int | None = Field(None, ge=0)


class Job(Resource):
    API_VERSION = "batch/v1"
    KIND = "Job"
    spec: JobSpec
    status: JobStatus | None = None


def defaults(obj: dict) -> None:
    """SetDefaults_Job (pkg/apis/batch/v1/defaults.go); api/defaults.py adds the template's."""
    spec = obj["spec"]
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else BACKOFF_LIMIT
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", False)
    spec.setdefault("podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed")
    for rule in (spec.get("podFailurePolicy") or {}).get("rules") or []:
        for pattern in rule.get("onPodConditions") or []:
            pattern.setdefault("status", "True")


def generate_selector(obj: dict) -> None:
    """The apiserver's generateSelector, once the Job has its UID: the job-name and controller-uid
    labels (new and legacy keys) on the template, the selector on the controller-uid label, and the
    Job's own labels from the template's when it has none (SetDefaults_Job, applied on read)."""
    meta, spec = obj["metadata"], obj["spec"]
    if not spec.get("manualSelector"):
        labels = spec["template"].setdefault("metadata", {}).setdefault("labels", {})
        for key in (LEGACY_JOB_NAME, JOB_NAME):
            labels.setdefault(key, meta["name"])
        for key in (LEGACY_CONTROLLER_UID, CONTROLLER_UID):
            labels.setdefault(key, meta["uid"])
        selector = spec.get("selector") or {}
        spec["selector"] = {**selector, "matchLabels": {CONTROLLER_UID: meta["uid"],
                                                        **(selector.get("matchLabels") or {})}}
    if not meta.get("labels"):
        template_labels = (spec["template"].get("metadata") or {}).get("labels")
        if template_labels:
            meta["labels"] = dict(template_labels)


def condition(job: dict, type_: str) -> dict | None:
    """The Job's condition of that type when it is True."""
    return next((c for c in (job.get("status") or {}).get("conditions") or []
                 if c.get("type") == type_ and c.get("status") == "True"), None)


def finished(job: dict) -> str | None:
    """`Complete` or `Failed` once the Job has finished, else None."""
    return next((t for t in ("Complete", "Failed") if condition(job, t)), None)


def parse_indexes(text: str | None) -> set[int]:
    """`1,3-5,7` as a set of indexes."""
    out: set[int] = set()
    for part in (text or "").split(","):
        if part:
            first, _, last = part.partition("-")
            out.update(range(int(first), int(last or first) + 1))
    return out


def format_indexes(indexes: set[int]) -> str:
    """A set of indexes as Kubernetes writes `completedIndexes`: ascending runs `1,3-5,7`, a run of two
    as `1,2` (orderedIntervals.String)."""
    runs: list[list[int]] = []
    for i in sorted(indexes):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(str(a) if a == b else f"{a},{b}" if b == a + 1 else f"{a}-{b}" for a, b in runs)
