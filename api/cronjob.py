"""CronJob (batch/v1): the model, its keys, SetDefaults_CronJob, and the facts the controller and
kubectl share: a Job's name from its scheduled time and the annotations it carries. The schedule
syntax is `api/cron.py`; validation `api/cronjob_validation.py`; the controller
`actors/controllers/cronjob.py`."""
from __future__ import annotations

from typing import Literal

from api.batch import JobSpec
from api.meta import K8sModel, Resource

SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
INSTANTIATE = "cronjob.kubernetes.io/instantiate"  # kubectl create job --from=cronjob/x: "manual"
MAX_NAME = 52  # a Job's name adds `-` and up to 10 digits, and stays a DNS-1035 label (63)


class JobTemplateSpec(K8sModel):
    metadata: dict | None = None
    spec: JobSpec | None = None


class ObjectReference(K8sModel):
    apiVersion: str | None = None
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None
    fieldPath: str | None = None


class CronJobSpec(K8sModel):
    schedule: str
    timeZone: str | None = None
    startingDeadlineSeconds: int | None = None
    concurrencyPolicy: Literal["Allow", "Forbid", "Replace"] | None = None
    suspend: bool | None = None
    jobTemplate: JobTemplateSpec
    successfulJobsHistoryLimit: int | None = None
    failedJobsHistoryLimit: int | None = None


class CronJobStatus(K8sModel):
    active: list[ObjectReference] | None = None
    lastScheduleTime: str | None = None
    lastSuccessfulTime: str | None = None


class CronJob(Resource):
    API_VERSION = "batch/v1"
    KIND = "CronJob"
    spec: CronJobSpec
    status: CronJobStatus | None = None


def defaults(obj: dict) -> None:
    """SetDefaults_CronJob (pkg/apis/batch/v1/defaults.go); api/defaults.py adds the Job template's."""
    spec = obj["spec"]
    spec.setdefault("concurrencyPolicy", "Allow")
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)


def job_name(cronjob_name: str, scheduled: float) -> str:
    """`<cronjob>-<scheduled time in minutes since the epoch>` (getJobName): one name per time, so a
    second create of the same run is AlreadyExists."""
    return f"{cronjob_name}-{int(scheduled) // 60}"
