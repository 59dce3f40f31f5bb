"""ClusterRole aggregation (`clusterroleaggregation_controller.go`): a ClusterRole with an
aggregationRule holds the rules of every ClusterRole its selectors match, so adding a labelled
ClusterRole (say `aggregate-to-view`) widens `view` without editing it."""
from __future__ import annotations

from api import selectors


def normalized(rule: dict) -> dict:
    """A rule compared as Kubernetes' semantic equality does: an empty list is the same as none."""
    return {key: value for key, value in rule.items() if value}


def aggregate(role: dict, all_cluster_roles: list[dict]) -> list[dict] | None:
    """The rules `role` should hold, or None when it has no aggregationRule or already holds them.
    Per selector, matching roles in name order (the role itself skipped), duplicates dropped. A
    selector that does not parse raises ValueError: Kubernetes then leaves the role as it is."""
    if not role.get("aggregationRule"):
        return None
    name = (role.get("metadata") or {}).get("name")
    by_name = sorted(all_cluster_roles, key=lambda r: (r.get("metadata") or {}).get("name") or "")
    rules: list[dict] = []
    for selector in role["aggregationRule"].get("clusterRoleSelectors") or []:
        match = selectors.from_label_selector(selector or {})
        for other in by_name:
            meta = other.get("metadata") or {}
            if meta.get("name") != name and match.matches(meta.get("labels")):
                _add(rules, other.get("rules") or [])
    current = [normalized(r) for r in role.get("rules") or []]
    return None if [normalized(r) for r in rules] == current else rules


def _add(rules: list[dict], more: list[dict]) -> None:
    for rule in more:
        if not any(normalized(r) == normalized(rule) for r in rules):
            rules.append(rule)
