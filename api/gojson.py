"""JSON values as Go's `encoding/json` decodes them into `interface{}`: their type, equality and
`%v` text. The patch code ports Go (apimachinery's strategicpatch, evanphx/json-patch), whose
ordering and error messages depend on these: a number is a float64 (never equal to a bool), a
list sorts by the `%v` text of its items, an error prints a map as `map[k:v]`."""
from __future__ import annotations

import json
from typing import Any, Hashable

TYPE_NAMES = {"nil": "<nil>", "bool": "bool", "float64": "float64", "string": "string",
              "slice": "[]interface {}", "map": "map[string]interface {}"}


def go_type(value: Any) -> str:
    """The kind Go's decoder gives `value`: nil, bool, float64, string, slice or map."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "slice" if isinstance(value, list) else "map"


def type_name(value: Any) -> str:
    """`reflect.TypeOf(value)` as Go prints it."""
    return TYPE_NAMES[go_type(value)]


def go_equal(left: Any, right: Any) -> bool:
    """`reflect.DeepEqual` of two decoded JSON values (1 and true differ, 1 and 1.0 do not)."""
    kind = go_type(left)
    if kind != go_type(right):
        return False
    if kind == "map":
        return left.keys() == right.keys() and all(go_equal(left[k], right[k]) for k in left)
    if kind == "slice":
        return len(left) == len(right) and all(go_equal(a, b) for a, b in zip(left, right))
    return left == right


def go_key(value: Any) -> Hashable:
    """`value` as a dict key that matches exactly the values `go_equal` to it, so a linear search by
    `go_equal` becomes one hashed lookup: 1 and 1.0 share a key, 1 and true do not, maps ignore the
    order of their keys, and a NaN (equal to nothing, itself included) gets a key of its own."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("float64", value) if value == value else object()
    if isinstance(value, list):
        return ("slice", tuple(go_key(item) for item in value))
    if isinstance(value, dict):
        return ("map", frozenset((k, go_key(v)) for k, v in value.items()))
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def go_str(value: Any) -> str:
    """`fmt.Sprintf("%v", value)`: maps as `map[a:1 b:x]` (keys sorted), lists as `[a b]`."""
    kind = go_type(value)
    if kind == "nil":
        return "<nil>"
    if kind == "bool":
        return "true" if value else "false"
    if kind == "float64":
        return _float_text(float(value))
    if kind == "slice":
        return "[" + " ".join(go_str(v) for v in value) + "]"
    if kind == "map":
        return "map[" + " ".join(f"{k}:{go_str(value[k])}" for k in sorted(value)) + "]"
    return value


def _float_text(number: float) -> str:
    """A float64 by `%v`: the shortest text, with an exponent below 1e-4 and from 1e21 on."""
    if number.is_integer() and abs(number) < 1e21:
        return str(int(number))
    text = repr(number)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}e{sign}{exponent.lstrip('+-').zfill(2)}"
    return text


def sort_scalars(values: list) -> list:
    """Go's `sortScalars`: by `%v` text."""
    return sorted(values, key=go_str)


def json_text(value: Any) -> str:
    """A value as compact JSON, for the byte-wise comparisons json-patch makes of scalars."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def go_quote(text: str) -> str:
    """Go's `%q` of a string: double-quoted, backslash escapes, printable Unicode kept."""
    return json.dumps(text, ensure_ascii=False)


def go_quote_list(items: list[str] | tuple[str, ...]) -> str:
    """Go's `%q` of a []string: `["a" "b"]`, elements separated by spaces."""
    return "[" + " ".join(go_quote(i) for i in items) + "]"


def go_json(value: Any) -> str:
    """Go's `json.Marshal` (as a field error prints a list or struct): compact, `<>&` escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
