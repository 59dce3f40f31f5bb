"""Kubernetes resource quantities: `100m`, `1.5`, `128Mi`, `1G`, `1e3`."""
from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation
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
