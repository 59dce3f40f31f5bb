"""A container's environment as the kubelet makes it (`makeEnvironmentVariables`): `envFrom` in list
order (each key of the ConfigMap's `data` or the Secret's `data` as `<prefix><key>`, later wins), then
`env` in list order (`value` expanded against what is set so far, or `valueFrom`), over the kubelet's
own variables (service links, KUBERNETES_SERVICE_*). What it reads it finds in `objects`, the pod's
ConfigMaps and Secrets as last fetched (None: not found). A missing object or key that is not
`optional` is a ConfigError with Kubernetes' message: the container waits in CreateContainerConfigError."""
from __future__ import annotations

import base64
from typing import Mapping

from actors.kubelet.cri.expand import expand
from actors.kubelet.fieldpath import FieldError, PodFacts, field_value, resource_value
from api.podrefs import CONFIGMAP, SECRET

Objects = Mapping[tuple[str, str], "dict | str | None"]  # None: not found; str: why the get failed
NOUNS = {CONFIGMAP: "configmap", SECRET: "secret"}


class ConfigError(Exception):
    """The container's configuration cannot be made (the message is the waiting reason's)."""


def valid_name(name: str) -> bool:
    """The relaxed rule: printable ASCII other than '=' (`envFrom` keys that break it are skipped)."""
    return bool(name) and all(" " <= ch <= "~" and ch != "=" for ch in name)


def lookup(objects: Objects, kind: str, name: str, namespace: str, optional: bool) -> dict | None:
    """The object's values (a Secret's decoded), None when missing and optional."""
    if (kind, name) not in objects:
        raise ConfigError(f"{NOUNS[kind]} \"{name}\" not fetched yet")
    obj = objects[(kind, name)]
    if isinstance(obj, str):
        raise ConfigError(obj)
    if obj is None:
        if optional:
            return None
        raise ConfigError(f"{NOUNS[kind]} \"{name}\" not found")
    return values_of(kind, obj)


def values_of(kind: str, obj: dict) -> dict[str, str]:
    if kind == SECRET:
        return {k: base64.b64decode(v).decode("utf-8", "replace") for k, v in (obj.get("data") or {}).items()}
    return dict(obj.get("data") or {})


def _key(objects: Objects, kind: str, ref: dict, namespace: str) -> str | None:
    values = lookup(objects, kind, ref.get("name", ""), namespace, bool(ref.get("optional")))
    if values is None:
        return None
    if ref.get("key") not in values:
        if ref.get("optional"):
            return None
        raise ConfigError(f"couldn't find key {ref.get('key')} in {kind} {namespace}/{ref.get('name')}")
    return values[ref["key"]]


def from_sources(container: dict, objects: Objects, namespace: str) -> dict[str, str]:
    """`envFrom`: every valid key of each source, prefixed; invalid names are skipped."""
    env: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        kind, ref = (CONFIGMAP, source["configMapRef"]) if source.get("configMapRef") else \
            (SECRET, source.get("secretRef") or {})
        values = lookup(objects, kind, ref.get("name", ""), namespace, bool(ref.get("optional"))) or {}
        prefix = source.get("prefix") or ""
        env.update({prefix + k: v for k, v in values.items() if valid_name(prefix + k)})
    return env


def value_of(var: dict, pod: dict, container: dict, objects: Objects, facts: PodFacts, env: dict) -> str | None:
    """One `env` entry's value (None: an optional reference that is missing, so no variable)."""
    source, namespace = var.get("valueFrom"), pod["metadata"].get("namespace", "")
    if not source:
        return expand(var.get("value", ""), env)
    try:
        if source.get("fieldRef"):
            return field_value(pod, source["fieldRef"].get("fieldPath", ""), facts)
        if source.get("resourceFieldRef"):
            return resource_value(pod, source["resourceFieldRef"], container.get("name", ""), facts)
    except FieldError as exc:
        raise ConfigError(str(exc)) from None
    if source.get("configMapKeyRef"):
        return _key(objects, CONFIGMAP, source["configMapKeyRef"], namespace)
    if source.get("secretKeyRef"):
        return _key(objects, SECRET, source["secretKeyRef"], namespace)
    return ""


def with_pod_ip(container: dict, env: dict[str, str], ip: str | None) -> dict[str, str]:
    """The env with `status.podIP(s)` fieldRefs set to the sandbox's address, known only once the
    runtime made it (after the kubelet resolved the env)."""
    paths = ("status.podIP", "status.podIPs")
    names = [v["name"] for v in container.get("env") or []
             if ((v.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath") in paths]
    return {**env, **{name: ip for name in names}} if ip and names else env


def container_env(pod: dict, container: dict, objects: Objects, facts: PodFacts,
                  base: dict[str, str]) -> dict[str, str]:
    """`base` (the kubelet's own), then envFrom, then env; raises ConfigError."""
    env = {**base, **from_sources(container, objects, pod["metadata"].get("namespace", ""))}
    for var in container.get("env") or []:
        value = value_of(var, pod, container, objects, facts, env)
        if value is not None:
            env[var["name"]] = value
    return env
