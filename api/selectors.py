"""Label selectors: `a=b,c!=d,env in (x,y),!k,k` strings and metav1.LabelSelector maps."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

OPS = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # In NotIn Exists DoesNotExist Gt Lt
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        if self.op == "In":
            return present and labels[self.key] in self.values
        if self.op == "NotIn":
            return not present or labels[self.key] not in self.values
        if self.op == "Exists":
            return present
        if self.op == "DoesNotExist":
            return not present
        return present and _compare(labels[self.key], self.values[0], self.op)


def _compare(label: str, operand: str, op: str) -> bool:
    try:
        left, right = int(label), int(operand)
    except ValueError:
        return False
    return left > right if op == "Gt" else left < right


@dataclass(frozen=True)
class Selector:
    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.nothing:
            return False
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements and not self.nothing


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)


def requirement(key: str, op: str, values: Iterable[str] = ()) -> Requirement:
    """Build a requirement, checking the value count Kubernetes' NewRequirement checks."""
    values = tuple(values)
    if op not in OPS:
        raise ValueError(f"{op!r} is not a valid label selector operator")
    if op in ("In", "NotIn") and not values:
        raise ValueError(f"for '{op}' operator, values set can't be empty")
    if op in ("Exists", "DoesNotExist") and values:
        raise ValueError("values set must be empty for exists and does not exist")
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise ValueError(f"for '{op}' operator, exactly one value is required")
        int(values[0])
    return Requirement(key, op, values)


def from_label_selector(selector: Mapping | None) -> Selector:
    """metav1.LabelSelector: None matches nothing, {} matches everything."""
    if selector is None:
        return NOTHING
    reqs = [Requirement(k, "In", (v,)) for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        reqs.append(requirement(expr.get("key", ""), expr.get("operator", ""), expr.get("values") or ()))
    return Selector(tuple(reqs))


_TOKEN = re.compile(r"\s*(!=|==|=|\(|\)|,|!|[^\s!=(),]+)")


def parse(text: str | None) -> Selector:
    """Parse kubectl's selector syntax; raises ValueError naming what is wrong."""
    if not text or not text.strip():
        return EVERYTHING
    tokens = _tokens(text)
    reqs, i = [], 0
    while i < len(tokens):
        req, i = _one(tokens, i, text)
        reqs.append(req)
        if i < len(tokens):
            if tokens[i] != ",":
                raise ValueError(f"unable to parse requirement: found {tokens[i]!r}, expected ','")
            i += 1
    return Selector(tuple(reqs))


def _tokens(text: str) -> list[str]:
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            break
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


def _one(tokens: list[str], i: int, text: str) -> tuple[Requirement, int]:
    if tokens[i] == "!":
        return Requirement(tokens[i + 1], "DoesNotExist"), i + 2
    key = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ","
    if nxt == ",":
        return Requirement(key, "Exists"), i + 1
    if nxt in ("=", "=="):
        return Requirement(key, "In", (_value(tokens, i + 2),)), i + 3
    if nxt == "!=":
        return Requirement(key, "NotIn", (_value(tokens, i + 2),)), i + 3
    if nxt.lower() in ("in", "notin"):
        values, j = _set(tokens, i + 2, text)
        return requirement(key, "In" if nxt.lower() == "in" else "NotIn", values), j
    raise ValueError(f"unable to parse requirement {key!r} in selector {text!r}")


def _value(tokens: list[str], i: int) -> str:
    if i >= len(tokens) or tokens[i] in (",", "(", ")"):
        return ""
    return tokens[i]


def _set(tokens: list[str], i: int, text: str) -> tuple[list[str], int]:
    if i >= len(tokens) or tokens[i] != "(":
        raise ValueError(f"expected '(' after set operator in selector {text!r}")
    values, i = [], i + 1
    while i < len(tokens) and tokens[i] != ")":
        if tokens[i] != ",":
            values.append(tokens[i])
        i += 1
    if i >= len(tokens):
        raise ValueError(f"missing ')' in selector {text!r}")
    return values, i + 1
