"""kubectl's columns of a Job (`printJob`, kubectl 1.28+): NAME STATUS COMPLETIONS DURATION AGE; of a CronJob
(`printCronJob`): NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE."""
from __future__ import annotations

from datetime import datetime, timezone

from api import batch
from api.printers.workloads import Row, age, template_cells
from api.times import seconds

STATUS_ORDER = ("Complete", "Failed")


def job_status(job: dict) -> str:
    """The first of Complete, Failed, Terminating, Suspended, FailureTarget; else Running."""
    for type_ in STATUS_ORDER:
        if batch.condition(job, type_):
            return type_
    if job["metadata"].get("deletionTimestamp"):
        return "Terminating"
    return next((t for t in ("Suspended", "FailureTarget") if batch.condition(job, t)), "Running")


def completions(job: dict) -> str:
    spec, succeeded = job["spec"], (job.get("status") or {}).get("succeeded", 0)
    if spec.get("completions") is not None:
        return f"{succeeded}/{spec['completions']}"
    parallelism = spec.get("parallelism")
    return f"{succeeded}/1 of {parallelism}" if parallelism is not None and parallelism > 1 else f"{succeeded}/1"


def duration(job: dict, now: datetime | None = None) -> str:
    status = job.get("status") or {}
    if not status.get("startTime"):
        return ""
    end = status.get("completionTime")
    until = datetime.fromtimestamp(seconds(end), timezone.utc) if end else now
    return age(status["startTime"], until)


def _job(job: dict, wide: bool) -> list[str]:
    return [job["metadata"]["name"], job_status(job), completions(job), duration(job),
            age(job["metadata"].get("creationTimestamp"))] + template_cells(job, wide)


def _bool(value: bool | None) -> str:
    """printBoolPtr."""
    return "<unset>" if value is None else str(bool(value))


def _cronjob(cj: dict, wide: bool) -> list[str]:
    spec, status = cj["spec"], cj.get("status") or {}
    last = status.get("lastScheduleTime")
    cells = [cj["metadata"]["name"], spec.get("schedule", ""), spec.get("timeZone") or "<none>",
             _bool(spec.get("suspend")), str(len(status.get("active") or [])), age(last) if last else "<none>",
             age(cj["metadata"].get("creationTimestamp"))]
    if wide:
        job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
        cells += template_cells({"spec": job_spec}, True)
    return cells


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "Job": (["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"], _job),
    "CronJob": (["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
                ["CONTAINERS", "IMAGES", "SELECTOR"], _cronjob),
}
