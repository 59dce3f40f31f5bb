"""Node selector terms evaluated over many nodes at once (label columns of the NodeTable).

A requirement that `labels.NewRequirement` refuses (a key that is no qualified name, a value that is no
label value, a missing or unparsable operand) makes its term match nothing, as the term's parse errors
do upstream (`component-helpers/scheduling/corev1/nodeaffinity`). The apiserver checks only the key
and the value count, so such terms do reach the scheduler."""
from __future__ import annotations

import re

import numpy as np

from actors.scheduler.nodes import NodeTable
from api.names import label_value_errors, qualified_name_errors

_DECIMAL = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
OBJECT_NAME_FIELD = "metadata.name"


def parse_int64(text) -> int | None:
    """Go's `strconv.ParseInt(text, 10, 64)`: an optional sign and decimal digits within int64, else None."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def requirement_parses(key, op: str, values: list) -> bool:
    """What `labels.NewRequirement` accepts for a node-selector requirement."""
    if not isinstance(key, str) or qualified_name_errors(key):
        return False
    if not all(isinstance(v, str) and not label_value_errors(v) for v in values):
        return False
    if op in ("In", "NotIn"):
        return bool(values)
    if op in ("Exists", "DoesNotExist"):
        return not values
    if op in ("Gt", "Lt"):
        return len(values) == 1 and parse_int64(values[0]) is not None
    return False


def field_requirement_parses(req: dict) -> bool:
    """`nodeSelectorRequirementsAsFieldSelector`: In or NotIn with exactly one value (the key is not checked)."""
    return req.get("operator") in ("In", "NotIn") and len(req.get("values") or []) == 1


def term_parses(term: dict) -> bool:
    return all(requirement_parses(r.get("key"), r.get("operator"), r.get("values") or [])
               for r in term.get("matchExpressions") or []) and \
        all(field_requirement_parses(r) for r in term.get("matchFields") or [])


def _compare(values: np.ndarray, bound: int, greater: bool) -> np.ndarray:
    def one(v) -> bool:
        n = parse_int64(v)
        return n is not None and (n > bound if greater else n < bound)

    return np.array([one(v) for v in values], dtype=bool)


def requirement_mask(column: np.ndarray, op: str, values: list[str]) -> np.ndarray:
    """A requirement that parses (see `requirement_parses`), over one label column."""
    if op in ("In", "NotIn"):
        wanted = set(values)
        member = np.array([v in wanted for v in column], dtype=bool)
        return member if op == "In" else ~member
    present = np.array([v is not None for v in column], dtype=bool)
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return ~present
    return _compare(column, parse_int64(values[0]), op == "Gt")


def term_mask(table: NodeTable, idx: np.ndarray, term: dict) -> np.ndarray | None:
    """A term's expressions and fields ANDed; None for an empty term (it is dropped); no node when
    the term does not parse."""
    exprs, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not exprs and not fields:
        return None
    if not term_parses(term):
        return np.zeros(len(idx), dtype=bool)
    mask = np.ones(len(idx), dtype=bool)
    for req in exprs:
        mask &= requirement_mask(table.label_column(req["key"])[idx], req["operator"], req.get("values") or [])
    names = np.array(table.names, dtype=object)[idx] if fields else None
    for req in fields:
        # a field other than metadata.name reads as "" (fields.Set.Get), as upstream
        field = names if req.get("key") == OBJECT_NAME_FIELD else np.full(len(idx), "", dtype=object)
        one = field == req["values"][0]
        mask &= one if req["operator"] == "In" else ~one
    return mask


def terms_mask(table: NodeTable, idx: np.ndarray, terms: list[dict]) -> np.ndarray:
    """Terms ORed; a list of only empty terms matches no node."""
    mask = np.zeros(len(idx), dtype=bool)
    for term in terms:
        one = term_mask(table, idx, term)
        if one is not None:
            mask |= one
    return mask


def selector_mask(table: NodeTable, idx: np.ndarray, selector: dict[str, str]) -> np.ndarray:
    mask = np.ones(len(idx), dtype=bool)
    for key, value in selector.items():
        mask &= table.label_column(key)[idx] == value
    return mask


def required_node_mask(table: NodeTable, idx: np.ndarray, spec: dict) -> np.ndarray:
    """pod.spec.nodeSelector AND required node affinity."""
    mask = selector_mask(table, idx, spec.get("nodeSelector") or {})
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        mask &= terms_mask(table, idx, required.get("nodeSelectorTerms") or [])
    return mask
