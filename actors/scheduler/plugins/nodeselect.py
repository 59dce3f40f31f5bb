"""Node selector terms evaluated over many nodes at once (label columns of the NodeTable)."""
from __future__ import annotations

import numpy as np

from actors.scheduler.nodes import NodeTable


def _compare(values: np.ndarray, operand: str, greater: bool) -> np.ndarray:
    try:
        bound = int(operand)
    except ValueError:
        return np.zeros(len(values), dtype=bool)

    def one(v) -> bool:
        try:
            return int(v) > bound if greater else int(v) < bound
        except (TypeError, ValueError):
            return False

    return np.array([one(v) for v in values], dtype=bool)


def requirement_mask(column: np.ndarray, op: str, values: list[str]) -> np.ndarray | None:
    """None when the requirement does not parse (then its term matches nothing)."""
    present = np.array([v is not None for v in column], dtype=bool)
    if op in ("In", "NotIn"):
        if not values:
            return None
        wanted = set(values)
        member = np.array([v in wanted for v in column], dtype=bool)
        return member if op == "In" else ~member
    if op == "Exists":
        return present if not values else None
    if op == "DoesNotExist":
        return ~present if not values else None
    if op in ("Gt", "Lt"):
        return _compare(column, values[0], op == "Gt") if len(values) == 1 else None
    return None


def term_mask(table: NodeTable, idx: np.ndarray, term: dict) -> np.ndarray | None:
    """A term's expressions and fields ANDed; None for an empty term (it is dropped)."""
    exprs, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not exprs and not fields:
        return None
    mask = np.ones(len(idx), dtype=bool)
    for req in exprs:
        one = requirement_mask(table.label_column(req["key"])[idx], req["operator"], req.get("values") or [])
        if one is None:
            return np.zeros(len(idx), dtype=bool)
        mask &= one
    names = np.array(table.names, dtype=object)[idx] if fields else None
    for req in fields:
        values = req.get("values") or []
        if req["key"] != "metadata.name" or req["operator"] not in ("In", "NotIn") or len(values) != 1:
            return np.zeros(len(idx), dtype=bool)
        one = names == values[0]
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
