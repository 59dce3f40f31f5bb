"""CEL's optional types (cel-go `OptionalTypes`, in Kubernetes since 1.28): `optional.of(x)`,
`optional.none()`, `optional.ofNonZeroValue(x)`, and on an optional `hasValue()`, `value()`,
`orValue(d)`, `or(o)`. The syntax `a.?f` and `m[?k]` (selection that answers an optional) is
`syntax.py`'s; it calls `select` and `index` here."""
from __future__ import annotations

from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

_ABSENT = object()


class Optional:
    """A value that may be absent (`optional_type`). Equal when both are none or both hold equal values."""
    __slots__ = ("held",)

    def __init__(self, held: Any = _ABSENT) -> None:
        self.held = held

    @classmethod
    def of(cls, value: Any) -> "Optional":
        return cls(value)

    @property
    def present(self) -> bool:
        return self.held is not _ABSENT

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Optional):
            return NotImplemented
        return self.present == other.present and (not self.present or self.held == other.held)

    def __hash__(self) -> int:
        return hash(("optional", self.held if self.present else None))

    def __repr__(self) -> str:
        return f"optional.of({self.held!r})" if self.present else "optional.none()"


NONE = Optional()


def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


def _zero(value: Any) -> bool:
    """cel-go's IsZeroValue: null, false, 0, 0u, 0.0, '', b'', [], {}."""
    if value is None:
        return True
    if isinstance(value, (celtypes.BoolType, celtypes.IntType, celtypes.UintType, celtypes.DoubleType, str,
                          bytes, list, dict)):
        return not value
    return False


def select(value: Any, field: str) -> Any:
    """`value.?field`: of(value.field) when the field is present, none when not."""
    if isinstance(value, Optional):
        return select(value.held, field) if value.present else NONE
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, celtypes.MapType):
        key = celtypes.StringType(field)
        return Optional.of(value[key]) if key in value else NONE
    return _error(f"no such overload: {type(value).__name__}.?{field}")


def index(value: Any, key: Any) -> Any:
    """`value[?key]`: a map's entry or a list's element as an optional, none when absent."""
    if isinstance(value, Optional):
        return index(value.held, key) if value.present else NONE
    if isinstance(value, CELEvalError) or isinstance(key, CELEvalError):
        return value if isinstance(value, CELEvalError) else key
    if isinstance(value, celtypes.MapType):
        return Optional.of(value[key]) if key in value else NONE
    if isinstance(value, celtypes.ListType) and isinstance(key, (celtypes.IntType, celtypes.UintType)):
        return Optional.of(value[int(key)]) if 0 <= int(key) < len(value) else NONE
    return _error("no such overload")


def _value(opt: Optional):
    return opt.held if opt.present else _error("optional.none() dereference")


def _or(opt: Optional, other):
    if opt.present:
        return opt
    return other if isinstance(other, (Optional, CELEvalError)) else _error("no such overload")


def _or_value(opt: Optional, default):
    return opt.held if opt.present else default


FUNCTIONS = {
    "optional.of": Optional.of,
    "optional.none": lambda: NONE,
    "optional.ofNonZeroValue": lambda value: NONE if _zero(value) else Optional.of(value),
    "hasValue": lambda opt: celtypes.BoolType(opt.present),
    "value": _value,
    "or": _or,
    "orValue": _or_value,
}
