"""The downward API's values (`pkg/fieldpath/fieldpath.go`, `pkg/api/v1/resource/helpers.go`): a pod's
field by its path (env `fieldRef`, downwardAPI volume items) and a container's resource by name with
its divisor (`resourceFieldRef`), a limit the container does not set being the node's allocatable."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

from api.quantity import parse_quantity

SUBSCRIPTED = re.compile(r"^metadata\.(labels|annotations)\['(.*)'\]$")


@dataclass(frozen=True)
class PodFacts:
    """What the downward API reads besides the pod: its addresses and its node's allocatable."""
    pod_ips: tuple[str, ...] = ()
    host_ips: tuple[str, ...] = ()
    allocatable: dict = field(default_factory=dict)
    token: str = ""  # the pod's bound ServiceAccount token (a projected serviceAccountToken source's file)


class FieldError(ValueError):
    """A path or resource the downward API does not know (validation refuses these at admission)."""


def format_map(values: dict) -> str:
    """FormatMap: `key="value"` lines, keys sorted, values Go-quoted, no trailing newline."""
    return "\n".join(f"{key}={json.dumps(values[key], ensure_ascii=False)}" for key in sorted(values))


def field_value(pod: dict, path: str, facts: PodFacts) -> str:
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    subscripted = SUBSCRIPTED.match(path)
    if subscripted:
        return (meta.get(subscripted.group(1)) or {}).get(subscripted.group(2), "")
    simple = {"metadata.name": meta.get("name", ""), "metadata.namespace": meta.get("namespace", ""),
              "metadata.uid": meta.get("uid", ""), "spec.nodeName": spec.get("nodeName", ""),
              "spec.serviceAccountName": spec.get("serviceAccountName", ""),
              "status.podIP": facts.pod_ips[0] if facts.pod_ips else "", "status.podIPs": ",".join(facts.pod_ips),
              "status.hostIP": facts.host_ips[0] if facts.host_ips else "",
              "status.hostIPs": ",".join(facts.host_ips)}
    if path in simple:
        return simple[path]
    if path in ("metadata.labels", "metadata.annotations"):
        return format_map(meta.get(path.split(".")[1]) or {})
    raise FieldError(f"unsupported fieldPath: {path}")


def resource_value(pod: dict, ref: dict, default_container: str, facts: PodFacts) -> str:
    """ExtractContainerResourceValue: ceil(quantity / divisor), as an integer."""
    name = ref.get("containerName") or default_container
    containers = [*(pod["spec"].get("initContainers") or []), *(pod["spec"].get("containers") or [])]
    container = next((c for c in containers if c.get("name") == name), None)
    if container is None:
        raise FieldError(f"container {name} not found")
    kind, _, resource = (ref.get("resource") or "").partition(".")
    if kind not in ("limits", "requests") or not resource:
        raise FieldError(f"unsupported container resource : {ref.get('resource')}")
    resources = container.get("resources") or {}
    amount = (resources.get(kind) or {}).get(resource)
    if amount is None and kind == "limits":
        amount = facts.allocatable.get(resource)
    if amount is None and kind == "requests":
        amount = (resources.get("limits") or {}).get(resource)  # a limit alone is also the request
    divisor = parse_quantity(ref.get("divisor") or "1")
    if divisor <= 0:
        raise FieldError(f"invalid divisor {ref.get('divisor')}")
    quantity = parse_quantity(amount) if amount is not None else Decimal(0)
    if resource == "cpu":  # MilliValue ratios: 1m is the smallest unit
        return str(math.ceil(math.ceil(quantity * 1000) / (divisor * 1000)))
    return str(math.ceil(math.ceil(quantity) / divisor))
