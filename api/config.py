"""ConfigMap and Secret (core/v1): the models, and what Kubernetes does to them on decode — a
Secret's `stringData` merged into `data` (and never kept), its `type` defaulted to Opaque, the
base64 of `data`/`binaryData` checked. Their validation is `api/config_validation.py`."""
from __future__ import annotations

import base64
import binascii
import re

from api.meta import Resource
from api.status import bad_request

OPAQUE = "Opaque"
ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"  # the kube-api-access volume's
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


class ConfigMap(Resource):
    KIND = "ConfigMap"
    data: dict[str, str] | None = None
    binaryData: dict[str, str] | None = None  # base64 in JSON
    immutable: bool | None = None


class Secret(Resource):
    KIND = "Secret"
    data: dict[str, str] | None = None  # base64 in JSON
    stringData: dict[str, str] | None = None  # write-only: merged into `data` on decode
    type: str | None = None
    immutable: bool | None = None


def decode_bytes(value: str) -> bytes:
    """Go's base64.StdEncoding of a []byte field; ValueError saying where it broke, as Go's
    CorruptInputError does (`illegal base64 data at input byte N`)."""
    match = _BASE64.match(value)
    if match.end() != len(value):
        raise ValueError(f"illegal base64 data at input byte {match.end()}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"illegal base64 data at input byte {len(value) - len(value) % 4}") from None


def encode_bytes(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _checked(kind: str, values: dict[str, str] | None) -> None:
    for value in (values or {}).values():
        try:
            decode_bytes(value)
        except ValueError as exc:
            raise bad_request(f'{kind} in version "v1" cannot be handled as a {kind}: {exc}') from None


def configmap(obj: dict) -> None:
    _checked("ConfigMap", obj.get("binaryData"))


def secret(obj: dict) -> None:
    """SetDefaults_Secret and the v1 conversion: `stringData` wins over `data` on a clash."""
    _checked("Secret", obj.get("data"))
    obj["type"] = obj.get("type") or OPAQUE
    merged = obj.pop("stringData", None)
    if merged:
        obj["data"] = {**(obj.get("data") or {}),
                       **{k: encode_bytes(v.encode()) for k, v in merged.items()}}


def sizes(obj: dict) -> dict[str, int]:
    """Each key's size in bytes (a Secret's decoded; a ConfigMap's data and binaryData), as describe shows."""
    if obj.get("kind") == "Secret":
        return {k: len(decode_bytes(v)) for k, v in (obj.get("data") or {}).items()}
    return {**{k: len(v.encode()) for k, v in (obj.get("data") or {}).items()},
            **{k: len(decode_bytes(v)) for k, v in (obj.get("binaryData") or {}).items()}}
