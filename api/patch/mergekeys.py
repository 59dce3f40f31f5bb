"""How a strategic merge patch merges the lists and maps of kubus's kinds: the `patchStrategy` and
`patchMergeKey` struct tags of k8s.io/api v0.32.4 (core/v1, apps/v1) and apimachinery's meta/v1,
keyed by the field's path in the object. A list item adds no step to a path: a container's env is
`spec.containers.env`.

A list not named here is replaced whole (tolerations, command, args, nodeSelectorTerms, rules, …);
a map not named here merges key by key.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Strategy:
    merge: bool = False  # patchStrategy "merge": a list merged item by item, not replaced
    key: str = ""  # patchMergeKey: what names an item; "" on a merged list of primitives
    retain_keys: bool = False  # patchStrategy "retainKeys": an apply clears what the manifest left out


REPLACE = Strategy()
RETAIN_KEYS = Strategy(retain_keys=True)


def merged(key: str = "", retain_keys: bool = False) -> Strategy:
    return Strategy(merge=True, key=key, retain_keys=retain_keys)


def _under(prefix: str, table: dict[str, Strategy]) -> dict[str, Strategy]:
    return {f"{prefix}.{path}": strategy for path, strategy in table.items()}


_OBJECT_META = {"finalizers": merged(), "ownerReferences": merged("uid")}
_CONTAINER = {"ports": merged("containerPort"), "env": merged("name"), "volumeMounts": merged("mountPath"),
              "volumeDevices": merged("devicePath")}
_CONTAINER_STATUS = {"volumeMounts": merged("mountPath"), "allocatedResourcesStatus": merged("name")}
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
_POD_SPEC = {
    "volumes": merged("name", retain_keys=True), "imagePullSecrets": merged("name"),
    "hostAliases": merged("ip"), "topologySpreadConstraints": merged("topologyKey"),
    "schedulingGates": merged("name"), "resourceClaims": merged("name", retain_keys=True),
    **{name: merged("name") for name in _CONTAINER_LISTS},
    **{k: v for name in _CONTAINER_LISTS for k, v in _under(name, _CONTAINER).items()},
}
_POD_STATUS = {
    "conditions": merged("type"), "podIPs": merged("ip"), "hostIPs": merged("ip"),
    "resourceClaimStatuses": merged("name", retain_keys=True),
    **{k: v for name in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
       for k, v in _under(name, _CONTAINER_STATUS).items()},
}
_META = _under("metadata", _OBJECT_META)
_TEMPLATE = {**_META, **_under("spec", _POD_SPEC)}
_CONDITIONS = {"status.conditions": merged("type")}

STRATEGIES: dict[str, dict[str, Strategy]] = {
    "Pod": {**_META, **_under("spec", _POD_SPEC), **_under("status", _POD_STATUS)},
    "Deployment": {**_META, "spec.strategy": RETAIN_KEYS, **_under("spec.template", _TEMPLATE), **_CONDITIONS},
    "ReplicaSet": {**_META, **_under("spec.template", _TEMPLATE), **_CONDITIONS},
    "DaemonSet": {**_META, **_under("spec.template", _TEMPLATE), **_CONDITIONS},
    "StatefulSet": {**_META, **_under("spec.template", _TEMPLATE), **_CONDITIONS},
    "Node": {**_META, "spec.podCIDRs": merged(), **_CONDITIONS, "status.addresses": merged("type")},
    "Namespace": {**_META, **_CONDITIONS},
    "ServiceAccount": {**_META, "secrets": merged("name")},
}


@dataclass(frozen=True)
class Schema:
    """A place in an object of `kind`: the path of field names from its root."""

    kind: str
    path: str = ""

    def child(self, field: str) -> "Schema":
        return Schema(self.kind, f"{self.path}.{field}" if self.path else field)

    def strategy(self, field: str) -> Strategy:
        """How `field` under this place merges (replaced, if its struct tags say nothing)."""
        return STRATEGIES.get(self.kind, _META).get(self.child(field).path, REPLACE)
