"""Building core/v1 Events about an object."""
from __future__ import annotations

import uuid

from api.times import now as now_rfc3339

MAX_MESSAGE = 1024


def event(obj: dict, reason: str, message: str, type_: str, component: str) -> dict:
    """An Event named `<object>.<random>` in the object's namespace, as Kubernetes' recorder makes."""
    meta = obj["metadata"]
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE - 4] + " ..."
    now = now_rfc3339()
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{uuid.uuid4().hex[:16]}",
                         "namespace": meta.get("namespace") or "default"},
            "involvedObject": {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj.get("kind", "Pod"),
                               "name": meta["name"], "namespace": meta.get("namespace"), "uid": meta.get("uid"),
                               "resourceVersion": meta.get("resourceVersion")},
            "reason": reason, "message": message, "type": type_, "count": 1, "firstTimestamp": now,
            "lastTimestamp": now, "source": {"component": component}, "reportingComponent": component}
