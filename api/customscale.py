"""The scale subresource of a custom kind (AX `registry/customresource/etcd.go`): an autoscaling/v1 Scale
whose `spec.replicas` is read from and written to the CRD's `specReplicasPath`, `status.replicas` from
`statusReplicasPath` (0 when absent) and `status.selector` from `labelSelectorPath` ("" when absent)."""
from __future__ import annotations

from typing import Any

from api.status import StatusError

MAX_REPLICAS = 2**31 - 1


def _steps(path: str) -> list[str]:
    return [step for step in path.split(".") if step]


def get_path(obj: dict, path: str) -> Any:
    node: Any = obj
    for step in _steps(path):
        if not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    return node


def set_path(obj: dict, path: str, value: Any) -> None:
    *parents, last = _steps(path)
    node = obj
    for step in parents:
        node = node.setdefault(step, {})
    node[last] = value


def scale_of(scale: dict, obj: dict) -> dict:
    """The Scale of a custom object; a 500 when the spec replicas field is missing, as Kubernetes answers."""
    spec_path = scale["specReplicasPath"]
    replicas = get_path(obj, spec_path)
    if replicas is None:
        raise StatusError("InternalError", f'the spec replicas field "{spec_path}" does not exist')
    status = get_path(obj, scale.get("statusReplicasPath") or "") if scale.get("statusReplicasPath") else None
    selector = get_path(obj, scale["labelSelectorPath"]) if scale.get("labelSelectorPath") else None
    meta = obj["metadata"]
    return {"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": replicas},
            "status": {"replicas": status if isinstance(status, int) else 0,
                       "selector": selector if isinstance(selector, str) else ""}}


def scaled(scale: dict, obj: dict, replicas: Any, name: str) -> dict:
    """The object with its spec replicas set; 422 unless a non-negative 32-bit integer."""
    if not isinstance(replicas, int) or isinstance(replicas, bool) or not 0 <= replicas <= MAX_REPLICAS:
        raise StatusError("Invalid", f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
                                     f"{replicas!r}: should be a non-negative integer")
    set_path(obj, scale["specReplicasPath"], replicas)
    return obj
