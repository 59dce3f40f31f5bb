"""The files of a configMap, secret, downwardAPI or projected volume (the kubelet's volume plugins'
`MakePayload`): no `items` → a file per key; `items` → those keys at their paths, each with its
`mode` or the volume's `defaultMode` (0644). A missing object or listed key that is not optional is a
MountError with the kubelet's FailedMount message; an optional missing object is no files."""
from __future__ import annotations

import base64
from typing import Mapping

from actors.kubelet.fieldpath import FieldError, PodFacts, field_value, resource_value
from actors.kubelet.volumes.atomic import Payload
from api.podrefs import CONFIGMAP, SECRET

DEFAULT_MODE = 0o644
Objects = Mapping[tuple[str, str], "dict | str | None"]  # None: not found; str: why the get failed


class MountError(Exception):
    """A volume cannot be set up (the message is the kubelet's FailedMount event's)."""


def _contents(kind: str, obj: dict) -> dict[str, bytes]:
    if kind == SECRET:
        return {k: base64.b64decode(v) for k, v in (obj.get("data") or {}).items()}
    return {**{k: v.encode() for k, v in (obj.get("data") or {}).items()},
            **{k: base64.b64decode(v) for k, v in (obj.get("binaryData") or {}).items()}}


def keyed(volume: str, kind: str, source: dict, objects: Objects, default_mode: int) -> Payload:
    """A configMap or secret (volume or projected source): its keys as files."""
    name = source.get("secretName") or source.get("name") or ""
    noun = "configmap" if kind == CONFIGMAP else "secret"
    obj = objects.get((kind, name))
    if isinstance(obj, str):
        raise MountError(f'MountVolume.SetUp failed for volume "{volume}" : {obj}')
    if obj is None:
        if source.get("optional"):
            return {}
        raise MountError(f'MountVolume.SetUp failed for volume "{volume}" : {noun} "{name}" not found')
    contents = _contents(kind, obj)
    items = source.get("items")
    if not items:
        return {key: (value, default_mode) for key, value in contents.items()}
    payload: Payload = {}
    for item in items:
        if item["key"] not in contents:
            if source.get("optional"):
                continue
            what = "config key" if kind == CONFIGMAP else "secret key"
            raise MountError(f'MountVolume.SetUp failed for volume "{volume}" : {noun} references non-existent '
                             f'{what}: {item["key"]}')
        payload[item["path"]] = (contents[item["key"]], _mode(item, default_mode))
    return payload


def downward(volume: str, source: dict, pod: dict, facts: PodFacts, default_mode: int) -> Payload:
    payload: Payload = {}
    for item in source.get("items") or []:
        try:
            if item.get("fieldRef"):
                value = field_value(pod, item["fieldRef"].get("fieldPath", ""), facts)
            else:
                value = resource_value(pod, item.get("resourceFieldRef") or {}, "", facts)
        except FieldError as exc:
            raise MountError(f'MountVolume.SetUp failed for volume "{volume}" : {exc}') from None
        payload[item["path"]] = (value.encode(), _mode(item, default_mode))
    return payload


def _mode(item: dict, default_mode: int) -> int:
    return item["mode"] if item.get("mode") is not None else default_mode


def _default(source: dict) -> int:
    return source["defaultMode"] if source.get("defaultMode") is not None else DEFAULT_MODE


def projected(volume: str, source: dict, pod: dict, objects: Objects, facts: PodFacts) -> Payload:
    payload: Payload = {}
    mode = _default(source)
    for part in source.get("sources") or []:
        if part.get("configMap") is not None:
            payload.update(keyed(volume, CONFIGMAP, part["configMap"], objects, mode))
        elif part.get("secret") is not None:
            payload.update(keyed(volume, SECRET, part["secret"], objects, mode))
        elif part.get("downwardAPI") is not None:
            payload.update(downward(volume, part["downwardAPI"], pod, facts, mode))
        elif part.get("serviceAccountToken") is not None:
            if not facts.token:
                raise MountError(f'MountVolume.SetUp failed for volume "{volume}" : failed to fetch token: '
                                 f'no token for the pod\'s service account yet')
            payload[part["serviceAccountToken"]["path"]] = (facts.token.encode(), mode)
    return payload


def payload_of(volume: dict, pod: dict, objects: Objects, facts: PodFacts) -> Payload | None:
    """The volume's files, or None when it is not a projecting kind (emptyDir, ...)."""
    name = volume["name"]
    if volume.get("configMap") is not None:
        return keyed(name, CONFIGMAP, volume["configMap"], objects, _default(volume["configMap"]))
    if volume.get("secret") is not None:
        return keyed(name, SECRET, volume["secret"], objects, _default(volume["secret"]))
    if volume.get("downwardAPI") is not None:
        return downward(name, volume["downwardAPI"], pod, facts, _default(volume["downwardAPI"]))
    if volume.get("projected") is not None:
        return projected(name, volume["projected"], pod, objects, facts)
    return None
