"""A terminated container's message (`kuberuntime_container.go` getTerminationMessage): what it wrote
to its termination-message file (at most 4 KiB); with `terminationMessagePolicy:
FallbackToLogsOnError`, a failed container that wrote nothing gets the tail of its log instead (80
lines, at most 2 KiB)."""
from __future__ import annotations

from actors.kubelet.cri import crilogs
from actors.kubelet.volumes.manager import PodVolumes

LOG_LINES, LOG_BYTES = 80, 2048


def message(volumes: PodVolumes | None, runtime, pod_uid: str, container: dict, instance: int, code: int) -> str:
    if volumes is None:
        return ""
    text = volumes.termination_message(container["name"], instance)
    if text or code == 0 or container.get("terminationMessagePolicy") != "FallbackToLogsOnError":
        return text
    path = runtime.log_path(pod_uid, container["name"], instance)
    if not path or getattr(runtime, "log_format", "") != "cri":
        return ""
    try:
        tail = crilogs.read(path, tail=LOG_LINES)
    except OSError:
        return ""
    return tail[-LOG_BYTES:].decode("utf-8", "replace")
