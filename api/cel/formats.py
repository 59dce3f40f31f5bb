"""Kubernetes' Format library (apiserver `pkg/cel/library/format.go`, since 1.31): `format.named(n)` (an
optional Format), `format.<name>()`, and `<Format>.validate(s)`, optional.none() when `s` is valid, else
an optional list of apimachinery's messages (the ones kubus's own validation says, `api/names.py`)."""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Callable, Sequence
from urllib.parse import urlsplit

from celpy import celtypes

from api.cel.optional import NONE, Optional
from api.names import dns1035_errors, label_errors, label_value_errors, qualified_name_errors, subdomain_errors

UUID = re.compile(r"(?i)(^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)|(^[0-9a-f]{32}$)")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")


@dataclass(frozen=True)
class Format:
    """`kubernetes.NamedFormat`: a name and the check that answers its errors."""
    name: str
    errors: Callable[[str], Sequence[str]]


def _mask_trailing_dash(name: str) -> str:
    """apimachinery's maskTrailingDash, which drops the last two characters for an 'a'."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _prefix(check: Callable[[str], Sequence[str]]) -> Callable[[str], Sequence[str]]:
    return lambda text: check(_mask_trailing_dash(text))


def _uri(text: str) -> list[str]:
    """Go's url.ParseRequestURI: an absolute URI or an absolute path."""
    if not text or not (text.startswith("/") or urlsplit(text).scheme) or " " in text:
        return [f'parse "{text}": invalid URI for request']
    return []


def _byte(text: str) -> list[str]:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _date(text: str) -> list[str]:
    try:
        if DATE.match(text):
            date.fromisoformat(text)
            return []
    except ValueError:
        pass
    return ["invalid date"]


def _datetime(text: str) -> list[str]:
    match = DATETIME.match(text)
    try:
        if match:
            zone = "+00:00" if match.group(4) in "Zz" else match.group(4)
            datetime.fromisoformat(f"{match.group(1)}T{match.group(2)}{zone}")
            return []
    except ValueError:
        pass
    return ["invalid datetime"]


NAMED = {
    "dns1123Label": Format("DNS1123Label", label_errors),
    "dns1123Subdomain": Format("DNS1123Subdomain", subdomain_errors),
    "dns1035Label": Format("DNS1035Label", dns1035_errors),
    "qualifiedName": Format("QualifiedName", qualified_name_errors),
    "dns1123LabelPrefix": Format("DNS1123LabelPrefix", _prefix(label_errors)),
    "dns1123SubdomainPrefix": Format("DNS1123SubdomainPrefix", _prefix(subdomain_errors)),
    "dns1035LabelPrefix": Format("DNS1035LabelPrefix", _prefix(dns1035_errors)),
    "labelValue": Format("LabelValue", label_value_errors),
    "uri": Format("URI", _uri),
    "uuid": Format("uuid", lambda s: [] if UUID.match(s) else ["does not match the UUID format"]),
    "byte": Format("byte", _byte),
    "date": Format("date", _date),
    "datetime": Format("datetime", _datetime),
}


def named(name):
    found = NAMED.get(str(name))
    return Optional.of(found) if found else NONE


def validate(fmt: Format, text):
    errors = fmt.errors(str(text))
    return Optional.of(celtypes.ListType(celtypes.StringType(e) for e in errors)) if errors else NONE


FUNCTIONS = {
    "format.named": named, "validate": validate,
    **{f"format.{name}": (lambda fmt=fmt: fmt) for name, fmt in NAMED.items()},
}
