"""Serving `kubus logs`: a container instance's log file, from a byte offset, optionally the tail."""
from __future__ import annotations

from pathlib import Path

from actors.kubelet.worker import PodWorker
from api.status import bad_request, not_found

MAX_CHUNK = 256 * 1024


def read_logs(worker: PodWorker | None, name: str, options: dict) -> dict:
    """{ok, text, offset}: text from `offset` (or the last `tail` lines), and where to go on from."""
    if worker is None:
        raise not_found("Pod", name)
    containers = {c.name: c for c in worker.inits + worker.apps}
    container = options.get("container") or (worker.apps[0].name if len(worker.apps) == 1 else None)
    if container is None:
        raise bad_request(f"a container name must be specified for pod {name}, choose one of: "
                          f"{sorted(c.name for c in worker.apps)}")
    c = containers.get(container)
    if c is None:
        raise bad_request(f"container {container} is not valid for pod {name}")
    if c.instances == 0:
        raise bad_request(f'container "{container}" in pod "{name}" is waiting to start')
    instance = c.instances - 1
    if options.get("previous"):
        if c.instances < 2:
            raise bad_request(f'previous terminated container "{container}" in pod "{name}" not found')
        instance -= 1
    path = worker.runtime.log_path(worker.uid, container, instance)
    if path is None:
        raise bad_request(f'container "{container}" in pod "{name}" has no logs (the {worker.runtime.name} '
                          f'runtime keeps none)')
    result = _read(Path(path), options)
    result["running"] = c.running and not options.get("previous")
    return result


def _read(path: Path, options: dict) -> dict:
    data = path.read_bytes()
    offset = options.get("offset")
    if offset is None and options.get("tail") is not None:
        lines = data.splitlines(keepends=True)
        text = b"".join(lines[-int(options["tail"]):]) if int(options["tail"]) > 0 else b""
    else:
        text = data[offset or 0:][:MAX_CHUNK]
    end = (offset or 0) + len(text) if offset is not None else len(data)
    return {"ok": True, "text": text.decode("utf-8", "replace"), "offset": end}
