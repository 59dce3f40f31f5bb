"""ConfigMap and Secret validation, as Kubernetes' ValidateConfigMap, ValidateSecret and their
update rules (`pkg/apis/core/validation/validation.go`): config keys, the 1 MiB total, the required
keys of each Secret type, `immutable` and a Secret's `type` that never change."""
from __future__ import annotations

import json
import re
from typing import Callable

from api.config import OPAQUE, decode_bytes
from api.status import Cause

MAX_SIZE = 1024 * 1024  # core.MaxSecretSize, ConfigMaps' too
_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_KEY_MESSAGE = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
                "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
IMMUTABLE = "Forbidden: field is immutable when `immutable` is set"
REDACTED = "<secret contents redacted>"
Rule = Callable[[dict, dict[str, bytes]], list[Cause]]


def key_errors(key: str) -> list[str]:
    """IsConfigMapKey."""
    errors = ["must be no more than 253 characters"] if len(key) > 253 else []
    if not _KEY.fullmatch(key):
        errors.append(_KEY_MESSAGE)
    if key == ".":
        errors.append("must not be '.'")
    elif key == "..":
        errors.append("must not be '..'")
    elif key.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def _keys(path: str, values: dict, other: dict, other_name: str) -> list[Cause]:
    causes = []
    for key in values:
        causes += [Cause(f"{path}[{key}]", f'Invalid value: "{key}": {e}') for e in key_errors(key)]
        if key in other:
            causes.append(Cause(f"{path}[{key}]", f'Invalid value: "{key}": duplicate of key present in {other_name}'))
    return causes


def _too_long(path: str) -> Cause:
    return Cause(path, f"Too long: may not be more than {MAX_SIZE} bytes", "FieldValueTooLong")


def validate_configmap(obj: dict) -> list[Cause]:
    data, binary = obj.get("data") or {}, obj.get("binaryData") or {}
    causes = _keys("data", data, binary, "binaryData") + _keys("binaryData", binary, data, "data")
    size = sum(len(v.encode()) for v in data.values()) + sum(len(decode_bytes(v)) for v in binary.values())
    return causes + ([_too_long("[]")] if size > MAX_SIZE else [])


def _required(key: str) -> Cause:
    return Cause(f"data[{key}]", "Required value", "FieldValueRequired")


def _docker(key: str) -> Rule:
    def rule(obj: dict, data: dict[str, bytes]) -> list[Cause]:
        if key not in data:
            return [_required(key)]
        why = go_json_object_error(data[key])
        return [Cause(f"data[{key}]", f'Invalid value: "{REDACTED}": {why}')] if why else []
    return rule


def _service_account_token(obj: dict, data: dict[str, bytes]) -> list[Cause]:
    name = "kubernetes.io/service-account.name"
    if (obj["metadata"].get("annotations") or {}).get(name):
        return []
    return [Cause(f"metadata.annotations[{name}]", "Required value", "FieldValueRequired")]


def _basic_auth(obj: dict, data: dict[str, bytes]) -> list[Cause]:
    return [] if "username" in data or "password" in data else [_required("username"), _required("password")]


def _ssh_auth(obj: dict, data: dict[str, bytes]) -> list[Cause]:
    return [] if data.get("ssh-privatekey") else [_required("ssh-privatekey")]


def _tls(obj: dict, data: dict[str, bytes]) -> list[Cause]:
    return [_required(key) for key in ("tls.crt", "tls.key") if key not in data]


TYPE_RULES: dict[str, Rule] = {
    "kubernetes.io/service-account-token": _service_account_token,
    "kubernetes.io/dockercfg": _docker(".dockercfg"),
    "kubernetes.io/dockerconfigjson": _docker(".dockerconfigjson"),
    "kubernetes.io/basic-auth": _basic_auth,
    "kubernetes.io/ssh-auth": _ssh_auth,
    "kubernetes.io/tls": _tls,
}


def go_json_object_error(raw: bytes) -> str | None:
    """What Go's json.Unmarshal into a map[string]interface{} says of `raw`; None when it is an object."""
    try:
        value = json.loads(raw.decode("utf-8", "replace"))
    except json.JSONDecodeError as exc:
        if exc.pos >= len(exc.doc.rstrip()):
            return "unexpected end of JSON input"
        return f"invalid character {exc.doc[exc.pos]!r} looking for beginning of value"
    if isinstance(value, dict) or value is None:
        return None
    kind = {list: "array", str: "string", bool: "bool"}.get(type(value), "number")
    return f"json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"


def validate_secret(obj: dict) -> list[Cause]:
    raw = obj.get("data") or {}
    causes = _keys("data", raw, {}, "")
    data = {k: decode_bytes(v) for k, v in raw.items()}
    if sum(len(v) for v in data.values()) > MAX_SIZE:
        causes.append(_too_long("data"))
    rule = TYPE_RULES.get(obj.get("type") or OPAQUE)
    return causes + (rule(obj, data) if rule else [])


def _locked(old: dict, new: dict, fields: tuple[str, ...]) -> list[Cause]:
    """Once `immutable: true` is stored, it stays, and so do the data fields."""
    if not old.get("immutable"):
        return []
    causes = [] if new.get("immutable") else [Cause("immutable", IMMUTABLE, "FieldValueForbidden")]
    return causes + [Cause(f, IMMUTABLE, "FieldValueForbidden") for f in fields
                     if (old.get(f) or {}) != (new.get(f) or {})]


def configmap_update(old: dict, new: dict) -> list[Cause]:
    return _locked(old, new, ("data", "binaryData"))


def secret_update(old: dict, new: dict) -> list[Cause]:
    causes = []
    if (old.get("type") or OPAQUE) != (new.get("type") or OPAQUE):
        causes.append(Cause("type", f'Invalid value: "{new.get("type")}": field is immutable'))
    return causes + _locked(old, new, ("data",))
