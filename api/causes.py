"""Pydantic validation errors in Kubernetes' words.

A cause reads as apimachinery's `field.Error` prints it: the path as `field.Path` writes it
(`spec.containers[0].resources.limits[cpu]`), the error type's words (`Invalid value`, `Required value`,
`Unsupported value`, `Too long`, `Too many`), the bad value as `ErrorBody` shows it (a string `%q`-quoted,
a number or bool plain, anything else `json.Marshal`ed) and cut short, and Kubernetes' type words
(`must be of type object`). Nothing of pydantic's phrasing or Python's repr reaches a client.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from api.status import Cause

MAX_SHOWN = 256  # characters of a bad value quoted in a cause; `...` marks the cut
NOT_SUPPORTED = "FieldValueNotSupported"
TYPE_WORDS = {
    "string_type": "string", "string_unicode": "string",
    "int_type": "integer", "int_parsing": "integer", "int_from_float": "integer", "int_parsing_size": "integer",
    "bool_type": "boolean", "bool_parsing": "boolean", "float_type": "number", "float_parsing": "number",
    "dict_type": "object", "model_type": "object", "model_attributes_type": "object", "dataclass_type": "object",
    "list_type": "array", "tuple_type": "array", "set_type": "array", "frozen_set_type": "array",
    "iterable_type": "array",
}
BOUNDS = {"greater_than_equal": ("greater than or equal to", "ge"), "less_than_equal": ("less than or equal to", "le"),
          "greater_than": ("greater than", "gt"), "less_than": ("less than", "lt")}
DETAILS = {"finite_number": "must be a finite number", "multiple_of": "must be a multiple of {multiple_of}",
           "string_pattern_mismatch": "must match the regular expression '{pattern}'"}
_TAG = re.compile(r"^(str|int|float|bool|dict|list|tuple|set|none|\[key\])$|^[a-z-]+\[|^(function|constrained)-")
_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}
_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f",
                 "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


# ---- the field path ---------------------------------------------------------------------------

def field_path(loc: Iterable, model: Any = None) -> str:
    """A pydantic location as Kubernetes writes the field: `.name`, `[0]`, `[key]` for a map's key.
    Given the model the location belongs to, map keys and union members are told apart exactly."""
    return _walk(tuple(loc), model)[0]


def _walk(loc: tuple, tp: Any) -> tuple[str, Any]:
    """The path, and the union whose member pydantic named last (None if the path ends elsewhere)."""
    out, union = "", None
    for part in loc:
        tp, union = _unwrap(tp), None
        if part == "[key]":  # the error is the map key's own, at the key's path
            tp = None
        elif _members(tp):  # pydantic names the union member it tried: not a field
            tp, union = _member(tp, part), tp
        elif isinstance(part, int):
            out, tp = out + f"[{part}]", _args(tp)[0] if _args(tp) else None
        elif _is_model(tp):
            out, tp = out + f".{part}", _field_type(tp, part)
        elif _is_map(tp):
            out, tp = out + f"[{part}]", _args(tp)[1] if len(_args(tp)) == 2 else None
        elif tp in (None, Any) and _TAG.match(str(part)):
            continue  # no model to ask: a name pydantic gives a union member or validator
        else:
            out, tp = out + f".{part}", None
    return out.removeprefix("."), union


def _unwrap(tp: Any) -> Any:
    """`Annotated` and `| None` peeled off; a union of several types stays."""
    while True:
        if get_origin(tp) is Annotated:
            tp = get_args(tp)[0]
        elif get_origin(tp) in (Union, UnionType) and len(_members(tp, strict=False)) == 1:
            tp = _members(tp, strict=False)[0]
        else:
            return tp


def _members(tp: Any, strict: bool = True) -> list:
    members = [a for a in get_args(tp) if a is not type(None)] if get_origin(tp) in (Union, UnionType) else []
    return members if len(members) > 1 or not strict else []


def _member(tp: Any, tag: Any) -> Any:
    name = str(tag).split("[")[0]
    return next((m for m in _members(tp) if getattr(_unwrap(m), "__name__", None) == name), None)


def _args(tp: Any) -> tuple:
    return get_args(tp)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _is_map(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    return isinstance(origin, type) and issubclass(origin, Mapping)


def _field_type(model: type[BaseModel], name: str) -> Any:
    for key, info in model.model_fields.items():
        if name in (key, info.alias, info.validation_alias):
            return info.annotation
    return None


def _type_word(tp: Any) -> str:
    """Kubernetes' word for a type (`object`, `array`, …); `int-or-string` for IntOrString."""
    tp = _unwrap(tp)
    if _members(tp):
        words = list(dict.fromkeys(_type_word(m) for m in _members(tp)))
        words = [w for w in words if w != "integer" or "number" not in words]
        return "int-or-string" if sorted(words) == ["integer", "string"] else " or ".join(words)
    origin = get_origin(tp) or tp
    if origin is Literal:
        return _type_word(type(get_args(tp)[0]))
    words = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (BaseModel, "object"),
             (Mapping, "object"), (list, "array"), (tuple, "array"), (set, "array"), (frozenset, "array"))
    return next((w for t, w in words if isinstance(origin, type) and issubclass(origin, t)), "object")


# ---- the value, as apimachinery's ErrorBody prints it ----------------------------------------------

def show(value: Any) -> str:
    """A bad value as Kubernetes quotes it: a string `%q`, a number or bool plain, anything else as
    Go's `json.Marshal` writes it (compact, keys sorted, `<>&` escaped); cut to MAX_SHOWN characters."""
    if isinstance(value, str):
        return _cut(go_quote(value[:MAX_SHOWN + 1]))
    if isinstance(value, (bool, int, float)):
        return _scalar(value, "v")
    text = ""
    try:
        for chunk in _go_json(value):
            text += chunk
            if len(text) > MAX_SHOWN:
                break
    except RecursionError:  # nested past Python's stack: what was written so far says enough
        text += "..." * (len(text) <= MAX_SHOWN)
    return _cut(text)


def go_quote(text: str) -> str:
    """Go's `%q` (strconv.Quote): backslash escapes, printable Unicode kept."""
    return '"' + "".join(_go_char(c) for c in text) + '"'


def _go_char(c: str) -> str:
    if c in _GO_ESCAPES:
        return _GO_ESCAPES[c]
    c = "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c  # Go's decoder replaced a lone surrogate
    if c == " " or unicodedata.category(c)[0] in "LMNPS":
        return c
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x80 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def _go_json(value: Any) -> Iterator[str]:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, Mapping):
        yield "{"
        for i, key in enumerate(sorted(value, key=str)):
            yield ("," if i else "") + _json_string(str(key)) + ":"
            yield from _go_json(value[key])
        yield "}"
    elif isinstance(value, (list, tuple, set, frozenset)):
        yield "["
        for i, item in enumerate(value):
            yield "," * bool(i)
            yield from _go_json(item)
        yield "]"
    elif value is None or isinstance(value, (bool, int, float, Decimal)):
        yield _scalar(value, "json")
    else:
        yield _json_string(value.decode(errors="replace") if isinstance(value, bytes) else str(value))


def _json_string(text: str) -> str:
    def char(c: str) -> str:
        if c in _JSON_ESCAPES:
            return _JSON_ESCAPES[c]
        if 0xD800 <= ord(c) <= 0xDFFF:
            return "\ufffd"
        return f"\\u{ord(c):04x}" if ord(c) < 0x20 else c
    return '"' + "".join(char(c) for c in text) + '"'


def _scalar(value: Any, how: str) -> str:
    """null, true, 5, and a float as Go's `%v` ("v") or `json.Marshal` ("json") writes a float64."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        return "NaN" if value != value else ("+Inf" if value > 0 else "-Inf")
    if value == 0:
        return "0"
    sign, digits, exp = Decimal(repr(float(value))).normalize().as_tuple()
    d, minus = "".join(map(str, digits)), "-" * sign
    e10 = len(d) + exp - 1
    if (e10 < -4 or e10 >= 6) if how == "v" else (e10 < -6 or e10 >= 21):
        mantissa = d[0] + (f".{d[1:]}" if len(d) > 1 else "")
        width = 2 if how == "v" or e10 > 0 else 1
        return f"{minus}{mantissa}e{'-' if e10 < 0 else '+'}{abs(e10):0{width}d}"
    if e10 < 0:
        return f"{minus}0.{'0' * (-e10 - 1)}{d}"
    return minus + (d + "0" * (e10 - len(d) + 1) if e10 >= len(d) - 1 else f"{d[:e10 + 1]}.{d[e10 + 1:]}")


# ---- the cause ------------------------------------------------------------------------------------

def causes_of(errors: Iterable[dict[str, Any]], prefix: tuple = (), model: Any = None) -> list[Cause]:
    """Every pydantic error as a cause, once: a union's members failing alike make one cause."""
    return list(dict.fromkeys(cause_of(e, prefix, model) for e in errors))


def cause_of(error: dict[str, Any], prefix: tuple = (), model: Any = None) -> Cause:
    """One pydantic error as a Kubernetes field cause. `model` is the type `error["loc"]` starts in
    (after `prefix`): with it, map keys read `[key]` and an IntOrString reads `int-or-string`."""
    path, union = _walk(tuple(error["loc"]), model)
    head = field_path(prefix)
    path = f"{head}.{path}" if head and path and not path.startswith("[") else head + path
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    null_field = value is None and kind in TYPE_WORDS and not path.endswith("]")  # Go decodes it as zero
    if kind == "missing" or null_field or (kind in ("string_too_short", "too_short") and ctx.get("min_length") == 1):
        return Cause(path, "Required value", "FieldValueRequired")
    if kind == "extra_forbidden":
        return Cause(path, f"unknown field {go_quote(path)}", NOT_SUPPORTED)
    if kind in ("literal_error", "enum"):
        supported = ", ".join(go_quote(v) for v in re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        return Cause(path, f"Unsupported value: {show(value)}: supported values: {supported}", NOT_SUPPORTED)
    if kind in TYPE_WORDS:
        word = _type_word(union) if union is not None else TYPE_WORDS[kind]
        return Cause(path, f"Invalid value: {show(value)}: must be of type {word}", "FieldValueTypeInvalid")
    return _bounded(path, kind, value, ctx) or _invalid(path, error, value, ctx)


def _bounded(path: str, kind: str, value: Any, ctx: dict) -> Cause | None:
    """Bounds and lengths as apimachinery's Invalid, TooLong, TooShort, TooMany and TooFew say them."""
    if kind in BOUNDS:
        words, key = BOUNDS[kind]
        return Cause(path, f"Invalid value: {show(value)}: must be {words} {_scalar(ctx.get(key), 'v')}")
    limit = ctx.get("max_length", ctx.get("min_length"))
    unit = lambda noun: f"{limit} {noun}{'s' * (limit != 1)}"  # noqa: E731
    if kind == "string_too_long":
        return Cause(path, f"Too long: may not be more than {unit('character')}", "FieldValueTooLong")
    if kind == "string_too_short":
        return Cause(path, f"Too short: must be at least {unit('character')}", "FieldValueTooShort")
    if kind == "too_long":
        return Cause(path, f"Too many: {ctx.get('actual_length')}: must have at most {unit('item')}",
                     "FieldValueTooMany")
    if kind == "too_short":
        return Cause(path, f"Too few: {ctx.get('actual_length')}: must have at least {unit('item')}",
                     "FieldValueTooFew")
    return None


def _invalid(path: str, error: dict[str, Any], value: Any, ctx: dict) -> Cause:
    """A validator's own words (kubus writes them as Kubernetes does); any other pydantic error as a
    plain `Invalid value`, never in pydantic's phrasing."""
    kind = error["type"]
    if kind in DETAILS:
        return Cause(path, f"Invalid value: {show(value)}: {DETAILS[kind].format(**ctx)}")
    if kind in ("value_error", "assertion_error"):
        detail = error["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
        return Cause(path, f"Invalid value: {show(value)}: {detail}")
    return Cause(path, f"Invalid value: {show(value)}")
