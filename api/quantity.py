"""Kubernetes resource quantities: `100m`, `1.5`, `128Mi`, `1G`, `1e3`."""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Annotated, Any

from pydantic import BeforeValidator

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
            "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
            "P": Decimal("1e15"), "E": Decimal("1e18")}
_RE = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))((?:[KMGTPE]i)|[eE][+-]?[0-9]+|[numkMGTPE])?$")


@lru_cache(maxsize=8192)
def parse_quantity(text: Any) -> Decimal:
    """The value of a quantity; raises ValueError with Kubernetes' wording when it is malformed."""
    if isinstance(text, bool):
        raise ValueError("quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    if isinstance(text, (int, float)):
        return Decimal(str(text))
    match = _RE.match(str(text).strip())
    if not match:
        raise ValueError("quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    number, suffix = match.group(1), match.group(2) or ""
    try:
        value = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only decimals
        raise ValueError(str(exc)) from None
    if suffix in _BINARY:
        return value * _BINARY[suffix]
    if suffix[:1] in ("e", "E"):
        return value * (Decimal(10) ** int(suffix[1:]))
    return value * _DECIMAL[suffix]


def milli(text: Any) -> int:
    """The quantity in thousandths, rounded up (how Kubernetes reads cpu)."""
    return int((parse_quantity(text) * 1000).to_integral_value(ROUND_CEILING))


def value(text: Any) -> int:
    """The quantity as an integer, rounded up (how Kubernetes reads memory and counts)."""
    return int(parse_quantity(text).to_integral_value(ROUND_CEILING))


def _check(v: Any) -> str:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str):
        raise ValueError("a quantity must be a string or a number")
    parse_quantity(v)
    return v


Quantity = Annotated[str, BeforeValidator(_check)]


# ---- a quantity with its format: what resource.Quantity prints back (quota messages and status) ----
DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"
_NANO = Decimal("1e-9")
_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]


@dataclass(frozen=True)
class Amount:
    """A parsed quantity with the format Kubernetes remembers for it; `str()` is its canonical text."""

    value: Decimal
    format: str = DECIMAL_SI

    def __add__(self, other: "Amount") -> "Amount":
        # resource.Quantity.Add: the sum keeps the receiver's format unless the receiver is zero
        return Amount(self.value + other.value, self.format if self.value else other.format)

    def __sub__(self, other: "Amount") -> "Amount":
        return Amount(self.value - other.value, self.format if self.value else other.format)

    def __str__(self) -> str:
        return canonical(self)


def amount(text: Any) -> Amount:
    """A quantity as resource.ParseQuantity reads it: rounded up to a nano unit, format from the suffix."""
    value = parse_quantity(text)
    if value.as_tuple().exponent < -9:
        value = value.quantize(_NANO, rounding=ROUND_UP)
    suffix = str(text).strip().lstrip("+-0123456789.")
    fmt = BINARY_SI if suffix.endswith("i") else DECIMAL_EXPONENT if suffix[:1] in ("e", "E") else DECIMAL_SI
    return Amount(value, fmt)


def canonical(q: Amount) -> str:
    """resource.Quantity.String(): the shortest exact form in the quantity's format."""
    if not q.value:
        return "0"
    if q.format == BINARY_SI and abs(q.value) >= 1024 and q.value == q.value.to_integral_value():
        return _binary(int(q.value))
    return _decimal(q.value, DECIMAL_EXPONENT if q.format == DECIMAL_EXPONENT else DECIMAL_SI)


def show(text: Any) -> str:
    """A stored quantity string as Kubernetes prints it back (`0.5` → `500m`, `1024Mi` → `1Gi`)."""
    return canonical(amount(text))


def _decimal(value: Decimal, fmt: str) -> str:
    sign, digits, exponent = value.normalize().as_tuple()
    mantissa = int("".join(map(str, digits)))
    while exponent % 3:
        mantissa, exponent = mantissa * 10, exponent - 1
    if fmt == DECIMAL_EXPONENT:
        suffix = f"e{exponent}" if exponent else ""
    else:
        while exponent > 18:
            mantissa, exponent = mantissa * 1000, exponent - 3
        suffix = _DECIMAL_SUFFIX[exponent]
    return f"{'-' if sign else ''}{mantissa}{suffix}"


def _binary(value: int) -> str:
    magnitude, power = abs(value), 0
    while magnitude % 1024 == 0 and power < len(_BINARY_SUFFIX) - 1:
        magnitude, power = magnitude // 1024, power + 1
    return f"{'-' if value < 0 else ''}{magnitude}{_BINARY_SUFFIX[power]}"
