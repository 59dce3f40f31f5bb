"""Name and label rules (RFC 1123 / 1035 and Kubernetes' qualified names), with Kubernetes' wording."""
from __future__ import annotations

import re
from functools import lru_cache, wraps
from typing import Callable, Sequence

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

MAX_GENERATED_PREFIX = 58
REMEMBERED_CHARS = 320  # longer than any valid name, label key or value


def _remembered(rule: Callable[[str], tuple[str, ...]]) -> Callable[[str], tuple[str, ...]]:
    """The same names, label keys and values come back with every write of an object: a rule (a pure
    function of its string, answering a tuple no caller can change) remembered for the most recent
    8,192 strings — those no longer than a valid one could be, so a long invalid one is not kept."""
    cached = lru_cache(maxsize=8192)(rule)

    @wraps(rule)
    def check(text: str) -> tuple[str, ...]:
        return cached(text) if len(text) <= REMEMBERED_CHARS else rule(text)

    return check

_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                  "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
                  "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
                  "[a-z0-9])?)*')")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
              "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
              "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
_QUALIFIED_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                  "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                  "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
              "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
              "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?"
              "[A-Za-z0-9])?')")


@_remembered
def subdomain_errors(name: str) -> tuple[str, ...]:
    errors = []
    if len(name) > 253:
        errors.append("must be no more than 253 characters")
    if not DNS1123_SUBDOMAIN.match(name):
        errors.append(_SUBDOMAIN_MSG)
    return tuple(errors)


@_remembered
def label_errors(name: str) -> tuple[str, ...]:
    errors = []
    if len(name) > 63:
        errors.append("must be no more than 63 characters")
    if not DNS1123_LABEL.match(name):
        errors.append(_LABEL_MSG)
    return tuple(errors)


def dns1035_errors(name: str) -> list[str]:
    """Service names: a DNS label that starts with a letter (it becomes an environment variable's prefix)."""
    errors = []
    if len(name) > 63:
        errors.append("must be no more than 63 characters")
    if not DNS1035_LABEL.match(name):
        errors.append(_DNS1035_MSG)
    return errors


def port_name_errors(name: str) -> list[str]:
    """Kubernetes' IsValidPortName (an IANA_SVC_NAME): named container and target ports."""
    errors = []
    if len(name) > 15:
        errors.append("must be no more than 15 characters")
    if not re.fullmatch(r"[-a-z0-9]+", name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        errors.append("must not begin or end with a hyphen")
    return errors


@_remembered
def qualified_name_errors(key: str) -> tuple[str, ...]:
    """Label and annotation keys: optional DNS-subdomain prefix and '/', then a 63-char name."""
    prefix, _, name = key.rpartition("/")
    errors = []
    if "/" in key and not prefix:
        errors.append("prefix part must be non-empty")
    elif prefix:
        errors += [f"prefix part {e}" for e in subdomain_errors(prefix)]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    elif not QUALIFIED_NAME.match(name):
        errors.append(_QUALIFIED_MSG)
    return tuple(errors)


@_remembered
def label_value_errors(value: str) -> tuple[str, ...]:
    errors = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if not LABEL_VALUE.match(value):
        errors.append(_VALUE_MSG)
    return tuple(errors)


def generate_name_prefix_errors(prefix: str, check=subdomain_errors) -> Sequence[str]:
    """A generateName prefix may end with '-' (Kubernetes masks it before checking)."""
    masked = prefix[:-1] + "a" if prefix.endswith("-") else prefix
    return check(masked)


def path_segment_errors(name: str) -> list[str]:
    """Kubernetes' `path.IsValidPathSegmentName` (RBAC names such as `system:controller:gc`)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]
