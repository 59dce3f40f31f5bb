"""Pydantic validation errors in Kubernetes' words: a field path and `Invalid value: …` causes."""
from __future__ import annotations

import json
from typing import Any

from api.status import Cause

NOT_SUPPORTED = "FieldValueNotSupported"
TYPE_WORDS = {
    "string_type": "string", "int_type": "integer", "int_from_float": "integer", "bool_type": "boolean",
    "float_type": "number", "dict_type": "object", "model_type": "object", "list_type": "array",
    "model_attributes_type": "object",
}
BOUNDS = {"greater_than_equal": ("greater than or equal to", "ge"), "less_than_equal": ("less than or equal to", "le"),
          "greater_than": ("greater than", "gt"), "less_than": ("less than", "lt")}

LENGTHS = {"string_too_long": ("be no more than", "max_length"), "string_too_short": ("be at least", "min_length"),
           "too_long": ("have at most", "max_length"), "too_short": ("have at least", "min_length")}


def field_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.startswith(("function-", "constrained-")) or part in ("str", "int", "dict", "list"):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


def show(value: Any) -> str:
    """A value as Kubernetes quotes it: JSON, cut short."""
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def cause_of(error: dict[str, Any], prefix: tuple = ()) -> Cause:
    """One pydantic error as a Kubernetes field cause."""
    path, kind, value = field_path((*prefix, *error["loc"])), error["type"], error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return Cause(path, "Required value", "FieldValueRequired")
    if kind == "extra_forbidden":
        return Cause(path, f'unknown field "{error["loc"][-1]}"', "FieldValueNotSupported")
    if kind == "literal_error":
        supported = ", ".join(f'"{v.strip(chr(39))}"' for v in str(ctx.get("expected", "")).replace(" or ", ", ")
                              .split(", "))
        return Cause(path, f"Unsupported value: {show(value)}: supported values: {supported}", NOT_SUPPORTED)
    if kind in BOUNDS:
        words, key = BOUNDS[kind]
        return Cause(path, f"Invalid value: {show(value)}: must be {words} {ctx.get(key)}")
    if kind in LENGTHS:
        words, key = LENGTHS[kind]
        return Cause(path, f"Invalid value: {show(value)}: must {words} {ctx.get(key)}")
    if kind in TYPE_WORDS:
        return Cause(path, f"Invalid value: {show(value)}: must be of type {TYPE_WORDS[kind]}", "FieldValueTypeInvalid")
    message = error["msg"].removeprefix("Value error, ")
    return Cause(path, f"Invalid value: {show(value)}: {message}")
