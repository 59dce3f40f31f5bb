"""A pod's volumes, volume mounts, env and envFrom, validated as `validation.go` does (the messages of
k8s-config-workloads.md §2.1 and §2.6). Only what the models cannot say: the shapes that reach the
kubelet are dicts of dicts, and it trusts them."""
from __future__ import annotations

from api import names
from api.status import Cause

SOURCES = ("emptyDir", "configMap", "secret", "downwardAPI", "projected", "hostPath", "persistentVolumeClaim",
           "nfs", "iscsi", "csi", "ephemeral", "image")
MAX_MODE = 0o777
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")
ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")


def _invalid(path: str, value, message: str) -> Cause:
    shown = f'"{value}"' if isinstance(value, str) else str(value)
    return Cause(path, f"Invalid value: {shown}: {message}")


def _required(path: str, detail: str = "") -> Cause:
    return Cause(path, f"Required value: {detail}" if detail else "Required value", "FieldValueRequired")


def relative_path(path: str, value) -> list[Cause]:
    if not isinstance(value, str) or not value:
        return [_required(path)]
    if value.startswith("/"):
        return [_invalid(path, value, "must be a relative path")]
    if ".." in value.split("/"):
        return [_invalid(path, value, "must not contain '..'")]
    if value.startswith(".."):
        return [_invalid(path, value, "must not start with '..'")]
    return []


def _mode(path: str, mode) -> list[Cause]:
    if mode is None or (isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode <= MAX_MODE):
        return []
    return [_invalid(path, mode, "must be a number between 0 and 0777 (octal), both inclusive")]


def _items(path: str, items) -> list[Cause]:
    causes = []
    for i, item in enumerate(items or []):
        here = f"{path}[{i}]"
        if not item.get("key"):
            causes.append(_required(f"{here}.key"))
        causes += relative_path(f"{here}.path", item.get("path")) + _mode(f"{here}.mode", item.get("mode"))
    return causes


def _downward(path: str, source: dict) -> list[Cause]:
    causes = []
    for i, item in enumerate(source.get("items") or []):
        here = f"{path}.items[{i}]"
        causes += relative_path(f"{here}.path", item.get("path")) + _mode(f"{here}.mode", item.get("mode"))
        if item.get("fieldRef") and item.get("resourceFieldRef"):
            causes.append(_invalid(here, "resource",
                                   "fieldRef and resourceFieldRef can not be specified simultaneously"))
        elif not item.get("fieldRef") and not item.get("resourceFieldRef"):
            causes.append(_required(here, "one of fieldRef and resourceFieldRef is required"))
    return causes


def _keyed(path: str, source: dict, name_field: str) -> list[Cause]:
    causes = [] if source.get(name_field) else [_required(f"{path}.{name_field}")]
    causes += _items(f"{path}.items", source.get("items"))
    return causes + _mode(f"{path}.defaultMode", source.get("defaultMode"))


def _source(path: str, kind: str, source) -> list[Cause]:
    if not isinstance(source, dict):
        return [_invalid(path, str(source), "must be an object")]
    if kind == "configMap":
        return _keyed(path, source, "name")
    if kind == "secret":
        return _keyed(path, source, "secretName")
    if kind == "downwardAPI":
        return _downward(path, source) + _mode(f"{path}.defaultMode", source.get("defaultMode"))
    if kind == "projected":
        return _projected(path, source)
    if kind == "hostPath":
        return _host_path(path, source)
    if kind == "persistentVolumeClaim" and not source.get("claimName"):
        return [_required(f"{path}.claimName")]
    return []


def _host_path(path: str, source: dict) -> list[Cause]:
    causes = [] if source.get("path") else [_required(f"{path}.path")]
    kind = source.get("type")
    if kind is not None and kind not in HOST_PATH_TYPES:
        listed = ", ".join(f'"{t}"' for t in sorted(HOST_PATH_TYPES))
        causes.append(Cause(f"{path}.type", f'Unsupported value: "{kind}": supported values: {listed}',
                            "FieldValueNotSupported"))
    return causes


def _projected(path: str, source: dict) -> list[Cause]:
    causes = _mode(f"{path}.defaultMode", source.get("defaultMode"))
    for i, part in enumerate(source.get("sources") or []):
        here = f"{path}.sources[{i}]"
        kinds = [k for k in ("configMap", "secret", "downwardAPI", "serviceAccountToken", "clusterTrustBundle")
                 if part.get(k) is not None]
        for extra in kinds[1:]:
            causes.append(Cause(f"{here}.{extra}", "Forbidden: may not specify more than 1 volume type per source",
                                "FieldValueForbidden"))
        if kinds and kinds[0] in ("configMap", "secret"):
            causes += _keyed(f"{here}.{kinds[0]}", part[kinds[0]], "name")
        elif kinds and kinds[0] == "downwardAPI":
            causes += _downward(f"{here}.downwardAPI", part["downwardAPI"])
    return causes


def volumes(path: str, spec: dict) -> list[Cause]:
    causes, seen = [], set()
    for i, volume in enumerate(spec.get("volumes") or []):
        here = f"{path}.volumes[{i}]"
        name = volume.get("name") or ""
        causes += [_required(f"{here}.name")] if not name else [_invalid(f"{here}.name", name, e)
                                                                 for e in names.label_errors(name)]
        if name in seen:
            causes.append(Cause(f"{here}.name", f'Duplicate value: "{name}"', "FieldValueDuplicate"))
        seen.add(name)
        kinds = [k for k in SOURCES if volume.get(k) is not None]
        for extra in kinds[1:]:
            causes.append(Cause(f"{here}.{extra}", "Forbidden: may not specify more than 1 volume type",
                                "FieldValueForbidden"))
        if kinds:
            causes += _source(f"{here}.{kinds[0]}", kinds[0], volume[kinds[0]])
    return causes


def mounts(path: str, container: dict, volume_names: set[str]) -> list[Cause]:
    causes, paths = [], set()
    for i, mount in enumerate(container.get("volumeMounts") or []):
        here = f"{path}.volumeMounts[{i}]"
        if not mount.get("name"):
            causes.append(_required(f"{here}.name"))
        elif mount["name"] not in volume_names:
            causes.append(Cause(f"{here}.name", f'Not found: "{mount["name"]}"', "FieldValueNotFound"))
        mount_path = mount.get("mountPath")
        if not mount_path:
            causes.append(_required(f"{here}.mountPath"))
        elif mount_path in paths:
            causes.append(_invalid(f"{here}.mountPath", mount_path, "must be unique"))
        paths.add(mount_path)
        if mount.get("subPath") and mount.get("subPathExpr"):
            causes.append(_invalid(f"{here}.subPathExpr", mount["subPathExpr"],
                                   "subPathExpr and subPath are mutually exclusive"))
        elif mount.get("subPath"):
            causes += relative_path(f"{here}.subPath", mount["subPath"])
    return causes


def env(path: str, container: dict) -> list[Cause]:
    causes = []
    for i, var in enumerate(container.get("env") or []):
        source = var.get("valueFrom")
        if source is None:
            continue
        here, count = f"{path}.env[{i}].valueFrom", sum(1 for k in ENV_SOURCES if source.get(k) is not None)
        if count == 0:
            causes.append(_invalid(here, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, "
                                             "`secretKeyRef` or `fileKeyRef`"))
        elif count > 1:
            causes.append(_invalid(here, "", "may not have more than one field specified at a time"))
        if var.get("value"):
            causes.append(_invalid(here, "", "may not be specified when `value` is not empty"))
    for i, source in enumerate(container.get("envFrom") or []):
        if not source.get("configMapRef") and not source.get("secretRef"):
            causes.append(_invalid(f"{path}.envFrom[{i}]", "", "must specify one of: `configMapRef` or `secretRef`"))
    return causes


def pod_volumes(path: str, spec: dict) -> list[Cause]:
    """Volumes, then each container's mounts and env, in field order."""
    try:
        return _pod_volumes(path, spec)
    except (AttributeError, TypeError):  # not objects where objects belong (the models do not type these)
        return [Cause(f"{path}.volumes", "Invalid value: volumes, volumeMounts, env and envFrom must be arrays of "
                                         "objects")]


def _pod_volumes(path: str, spec: dict) -> list[Cause]:
    causes = volumes(path, spec)
    names_ = {v.get("name") for v in spec.get("volumes") or []}
    for group in ("initContainers", "containers"):
        for i, container in enumerate(spec.get(group) or []):
            here = f"{path}.{group}[{i}]"
            causes += env(here, container) + mounts(here, container, names_)
    return causes
