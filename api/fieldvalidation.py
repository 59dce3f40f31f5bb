"""`fieldValidation` (Strict, Warn, Ignore): the fields of a request body kubus's models do not
know, named as kube-apiserver names them (`spec.containers[0].imagePullPolice`). kubus models a
subset of Kubernetes' fields and keeps the rest as they came, so an unknown field is a warning
here under Strict as under Warn, never a refusal (docs/gateway.md)."""
from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel

MODES = ("Strict", "Warn", "Ignore")


def unknown_fields(model: type[BaseModel], body: Any, path: str = "") -> list[str]:
    """Every key of `body` (a patch's `$` directives aside) that `model` has no field for."""
    if not isinstance(body, dict):
        return []
    fields = {(info.alias or name): info.annotation for name, info in model.model_fields.items()}
    found = []
    for key, value in body.items():
        where = f"{path}.{key}" if path else key
        if key.startswith("$"):
            continue
        if key not in fields:
            found.append(where)
            continue
        found.extend(_inside(fields[key], value, where))
    return found


def warnings(model: type[BaseModel], body: Any, mode: str | None) -> list[str]:
    if mode not in ("Strict", "Warn"):
        return []
    return [f'unknown field "{path}"' for path in unknown_fields(model, body)]


def _inside(annotation: Any, value: Any, path: str) -> list[str]:
    inner = _model_in(annotation)
    if inner is None:
        return []
    if isinstance(value, list) and _is(annotation, list):
        return [p for i, item in enumerate(value) for p in unknown_fields(inner, item, f"{path}[{i}]")]
    if isinstance(value, dict) and _is(annotation, dict):
        return [p for key, item in value.items() for p in unknown_fields(inner, item, f"{path}[{key}]")]
    return unknown_fields(inner, value, path)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (`X`, `X | None`, `list[X]`, `dict[str, X]`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        if (found := _model_in(arg)) is not None:
            return found
    return None


def _is(annotation: Any, container: type) -> bool:
    return typing.get_origin(annotation) is container or any(_is(a, container) for a in typing.get_args(annotation))
