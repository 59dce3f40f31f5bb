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
