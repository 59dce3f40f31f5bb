"""A CronJob's validation (pkg/apis/batch/validation ValidateCronJobCreate/Update) with Kubernetes'
messages: the name's 52 characters, the schedule as robfig/cron parses it (and no `TZ=` in it), the
time zone, the concurrency policy, the history limits, and the Job template validated as a Job's."""
from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from api import batch_validation, cron
from api.cronjob import MAX_NAME
from api.status import Cause

POLICIES = ("Allow", "Forbid", "Replace")
ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")
TZ_REFUSED = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
EXPLICIT_ZONE = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"


def _invalid(path: str, value, message: str) -> Cause:
    shown = f'"{value}"' if isinstance(value, str) else str(value)
    return Cause(path, f"Invalid value: {shown}: {message}")


def schedule_causes(schedule: str | None, allow_tz: bool = False) -> list[Cause]:
    path = "spec.schedule"
    if not schedule:
        return [Cause(path, "Required value", "FieldValueRequired")]
    causes = []
    try:
        cron.parse(schedule)
    except cron.CronError as exc:
        causes.append(_invalid(path, schedule, str(exc)))
    if not allow_tz and "TZ" in schedule:
        causes.append(_invalid(path, schedule, TZ_REFUSED))
    return causes


def zone_error(zone: str) -> str | None:
    """validateTimeZone's message for a zone, or None when it loads."""
    if zone == "":
        return "timeZone must be nil or non-empty string"
    if any(p in (".", "..") or p.startswith("-") or not ZONE_PART.match(p) for p in zone.split("/")):
        return f"unknown time zone {zone}"
    if zone.lower() == "local":
        return EXPLICIT_ZONE
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return f"unknown time zone {zone}"
    return None


def _policy(spec: dict) -> list[Cause]:
    policy = spec.get("concurrencyPolicy")
    if not policy:
        return [Cause("spec.concurrencyPolicy", "Required value", "FieldValueRequired")]
    if policy not in POLICIES:
        return [Cause("spec.concurrencyPolicy", f'Unsupported value: "{policy}": supported values: '
                      + ", ".join(f'"{p}"' for p in POLICIES), "FieldValueNotSupported")]
    return []


def _job_template(name: str, template: dict) -> list[Cause]:
    """ValidateJobTemplateSpec: the Job's spec rules under spec.jobTemplate, and no selector unless
    manual."""
    spec = template.get("spec") or {}
    prefix = "spec.jobTemplate."
    causes = [Cause(prefix + c.field, c.message, c.reason)
              for c in batch_validation.validate_job({"metadata": {"name": name}, "spec": spec})]
    if spec.get("selector") is not None and not spec.get("manualSelector"):
        causes.append(_invalid(prefix + "spec.selector", spec["selector"], "`selector` will be auto-generated"))
    return causes


def validate_cronjob(obj: dict, creating: bool = True) -> list[Cause]:
    meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    causes = []
    name = meta.get("name") or ""
    if creating and len(name) > MAX_NAME:
        causes.append(_invalid("metadata.name", name, f"must be no more than {MAX_NAME} characters"))
    causes += schedule_causes(spec.get("schedule"), allow_tz=not creating)
    deadline = spec.get("startingDeadlineSeconds")
    if isinstance(deadline, int) and deadline < 0:
        causes.append(_invalid("spec.startingDeadlineSeconds", deadline, "must be greater than or equal to 0"))
    causes += _policy(spec) + _job_template(name, spec.get("jobTemplate") or {})
    for limit in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        if isinstance(spec.get(limit), int) and spec[limit] < 0:
            causes.append(_invalid(f"spec.{limit}", spec[limit], "must be greater than or equal to 0"))
    if spec.get("timeZone") is not None:
        error = zone_error(spec["timeZone"])
        if error:
            causes.append(_invalid("spec.timeZone", spec["timeZone"], error))
    return causes

