"""`kubus describe job`: the lines kubectl's JobDescriber prints between the metadata and the events."""
from __future__ import annotations

from api.printers.batch import duration
from api.printers.workloads import selector_text


def job_lines(job: dict) -> list[str]:
    spec, status = job["spec"], job.get("status") or {}
    lines = [f"Selector:         {selector_text(spec.get('selector'))}",
             f"Parallelism:      {spec.get('parallelism')}",
             f"Completions:      {spec.get('completions', '<unset>')}",
             f"Completion Mode:  {spec.get('completionMode')}",
             f"Suspend:          {str(bool(spec.get('suspend'))).lower()}",
             f"Backoff Limit:    {spec.get('backoffLimit')}"]
    if spec.get("activeDeadlineSeconds") is not None:
        lines.append(f"Active Deadline Seconds:  {spec['activeDeadlineSeconds']}s")
    if spec.get("ttlSecondsAfterFinished") is not None:
        lines.append(f"TTL Seconds After Finished:  {spec['ttlSecondsAfterFinished']}")
    if status.get("startTime"):
        lines.append(f"Start Time:       {status['startTime']}")
    if status.get("completionTime"):
        lines.append(f"Completed At:     {status['completionTime']}")
    if status.get("startTime"):
        lines.append(f"Duration:         {duration(job)}")
    lines.append(f"Pods Statuses:    {status.get('active', 0)} Active ({status.get('ready', 0)} Ready) / "
                 f"{status.get('succeeded', 0)} Succeeded / {status.get('failed', 0)} Failed")
    if spec.get("completionMode") == "Indexed":
        lines.append(f"Completed Indexes:  {status.get('completedIndexes') or '<none>'}")
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    lines.append("Pod Template:")
    for c in containers:
        lines += [f"  {c['name']}:", f"    Image:    {c.get('image')}"]
        if c.get("command"):
            lines.append(f"    Command:  {' '.join(c['command'])}")
    return lines


def cronjob_lines(cj: dict) -> list[str]:
    """kubectl's describe of a CronJob: the schedule and policies, the Job template, the active Jobs."""
    spec, status = cj["spec"], cj.get("status") or {}
    job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    lines = [f"Schedule:                      {spec.get('schedule')}",
             f"Concurrency Policy:            {spec.get('concurrencyPolicy')}",
             f"Suspend:                       {str(bool(spec.get('suspend'))).capitalize()}",
             f"Successful Job History Limit:  {spec.get('successfulJobsHistoryLimit')}",
             f"Failed Job History Limit:      {spec.get('failedJobsHistoryLimit')}",
             f"Starting Deadline Seconds:     {_seconds(spec.get('startingDeadlineSeconds'))}",
             f"Last Schedule Time:            {status.get('lastScheduleTime') or '<unset>'}",
             f"Active Jobs:                   {', '.join(a['name'] for a in status.get('active') or []) or '<none>'}",
             "Pod Template:"]
    for c in ((job_spec.get("template") or {}).get("spec") or {}).get("containers") or []:
        lines += [f"  {c['name']}:", f"    Image:    {c.get('image')}"]
    return lines


def _seconds(value: int | None) -> str:
    return "<unset>" if value is None else f"{value}s"
