"""Validation of the kinds admission reads (`api/policy.py`): PriorityClass, LimitRange and
ResourceQuota, in the words of Kubernetes' `pkg/apis/{scheduling,core}/validation`."""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from api import names, quantity
from api.defaults import limit_range_item
from api.policy import HIGHEST_USER_DEFINABLE, SYSTEM_PREFIX, system_class_error
from api.status import Cause


STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})
QUOTA_RESOURCES = STANDARD_RESOURCES - {"storage"}
CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
INTEGER_RESOURCES = frozenset({"pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
                               "configmaps", "persistentvolumeclaims", "services.nodeports",
                               "services.loadbalancers"})
LIMIT_TYPES = ("Container", "Pod", "PersistentVolumeClaim")
QUOTA_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
                "CrossNamespacePodAffinity")
_POD_COMPUTE = frozenset({"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu",
                          "requests.memory"})


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, (int, float)) or isinstance(value, bool) else str(value)


def _bad(path: str, value: Any, detail: str) -> Cause:
    return Cause(path, f"Invalid value: {_show(value)}: {detail}")


def _hugepages(name: str) -> bool:
    return name.startswith(("hugepages-", "requests.hugepages-"))


def _resource_name_errors(path: str, name: str, standard: frozenset, why: str) -> list[Cause]:
    """validateResourceName and friends: a qualified name, standard unless it has a domain."""
    errors = [_bad(path, name, e) for e in names.qualified_name_errors(name)]
    if not errors and "/" not in name and name not in standard and not _hugepages(name):
        errors.append(_bad(path, name, why))
    return errors


def _quantity(path: str, value: Any) -> tuple[Decimal | None, list[Cause]]:
    try:
        return quantity.parse_quantity(value), []
    except ValueError as exc:
        return None, [_bad(path, value, str(exc))]


# ---- PriorityClass (K8S pkg/apis/scheduling/validation) ----

def validate_priority_class(obj: dict) -> list[Cause]:
    causes, name = [], (obj.get("metadata") or {}).get("name") or ""
    if name.startswith(SYSTEM_PREFIX):
        problem = system_class_error(name, obj.get("value"), bool(obj.get("globalDefault")))
        if problem:
            causes.append(Cause("metadata.name", f"Forbidden: priority class names with '{SYSTEM_PREFIX}' prefix "
                                f"are reserved for system use only. error: {problem}", "FieldValueForbidden"))
    elif (obj.get("value") or 0) > HIGHEST_USER_DEFINABLE:
        causes.append(Cause("value", "Forbidden: maximum allowed value of a user defined priority is "
                                     f"{HIGHEST_USER_DEFINABLE}", "FieldValueForbidden"))
    policy = obj.get("preemptionPolicy")
    if policy == "":
        causes.append(Cause("preemptionPolicy", "Required value", "FieldValueRequired"))
    elif policy is not None and policy not in ("PreemptLowerPriority", "Never"):
        causes.append(Cause("preemptionPolicy", f'Unsupported value: {_show(policy)}: supported values: '
                            f'"PreemptLowerPriority", "Never"', "FieldValueNotSupported"))
    return causes


def validate_priority_class_update(obj: dict, old: dict) -> list[Cause]:
    """value and preemptionPolicy are immutable."""
    causes = []
    if obj.get("value") != old.get("value"):
        causes.append(Cause("value", "Forbidden: may not be changed in an update.", "FieldValueForbidden"))
    if obj.get("preemptionPolicy") != old.get("preemptionPolicy"):
        causes.append(_bad("preemptionPolicy", obj.get("preemptionPolicy"), "field is immutable"))
    return causes


# ---- LimitRange (K8S pkg/apis/core/validation ValidateLimitRange) ----

def validate_limit_range(obj: dict) -> list[Cause]:
    causes, seen = [], set()
    for i, item in enumerate((obj.get("spec") or {}).get("limits") or []):
        path, kind = f"spec.limits[{i}]", item.get("type", "")
        causes += _limit_type_errors(f"{path}.type", kind)
        if kind in seen:
            causes.append(Cause(f"{path}.type", f"Duplicate value: {_show(kind)}", "FieldValueDuplicate"))
        seen.add(kind)
        causes += _limit_item_errors(path, item, limit_range_item(item))
    return causes


def _limit_type_errors(path: str, kind: str) -> list[Cause]:
    errors = [_bad(path, kind, e) for e in names.qualified_name_errors(kind)]
    if not errors and "/" not in kind and kind not in LIMIT_TYPES:
        errors.append(_bad(path, kind, "must be a standard limit type or fully qualified"))
    return errors


def _limit_item_errors(path: str, item: dict, defaulted: dict) -> list[Cause]:
    """Names and quantities as written; the order of min, defaults and max as decode-time defaulting
    leaves them (a default taken from max is compared too, as in Kubernetes)."""
    kind, causes = item.get("type"), []
    fields = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]
    if kind == "Pod":
        for field in ("default", "defaultRequest"):
            if item.get(field):
                causes.append(Cause(f"{path}.{field}", "Forbidden: may not be specified when `type` is 'Pod'",
                                    "FieldValueForbidden"))
        fields = ["max", "min", "maxLimitRequestRatio"]
    for field in fields:
        for name, raw in (item.get(field) or {}).items():
            causes += _limit_resource_errors(kind, f"{path}.{field}[{name}]", name)
            causes += _quantity(f"{path}.{field}[{name}]", raw)[1]
    if kind == "PersistentVolumeClaim" and "storage" not in (item.get("min") or {}) | (item.get("max") or {}):
        causes.append(Cause(f"{path}.limits", "Required value: either minimum or maximum storage value is required, "
                                              "but neither was provided", "FieldValueRequired"))
    values: dict[str, dict] = {}
    for field in fields:
        for name, raw in (defaulted.get(field) or {}).items():
            value = _quantity("", raw)[0]
            if value is not None:
                values.setdefault(name, {})[field] = (value, raw)
    for name in sorted(values):
        causes += _relations(path, name, values[name])
    return causes


def _limit_resource_errors(kind: str, path: str, name: str) -> list[Cause]:
    if kind not in ("Pod", "Container"):
        return _resource_name_errors(path, name, STANDARD_RESOURCES, "must be a standard resource type or fully "
                                                                     "qualified")
    errors = _resource_name_errors(path, name, STANDARD_RESOURCES, "must be a standard resource type or fully "
                                                                   "qualified")
    if "/" not in name and name not in CONTAINER_RESOURCES and not name.startswith("hugepages-"):
        errors.append(_bad(path, name, "must be a standard resource for containers"))
    return errors


_ORDER = (  # (must not exceed, what it is compared to, field of the error, value it shows, text)
    ("min", "max", "min", "min", "min value {min} is greater than max value {max}"),
    ("min", "defaultRequest", "defaultRequest", "defaultRequest",
     "min value {min} is greater than default request value {defaultRequest}"),
    ("defaultRequest", "max", "defaultRequest", "defaultRequest",
     "default request value {defaultRequest} is greater than max value {max}"),
    ("defaultRequest", "default", "defaultRequest", "defaultRequest",
     "default request value {defaultRequest} is greater than default limit value {default}"),
    ("min", "default", "default", "min", "min value {min} is greater than default value {default}"),
    ("default", "max", "default", "max", "default value {default} is greater than max value {max}"),
)


def _relations(path: str, name: str, q: dict) -> list[Cause]:
    """min <= defaultRequest <= default <= max, then the ratio (>= 1, <= max/min), in Kubernetes' order."""
    shown = {field: quantity.show(raw) for field, (_, raw) in q.items()}
    causes = [_bad(f"{path}.{field}[{name}]", shown[value_of], text.format(**shown))
              for low, high, field, value_of, text in _ORDER if low in q and high in q and q[low][0] > q[high][0]]
    ratio_path = f"{path}.maxLimitRequestRatio[{name}]"
    if "maxLimitRequestRatio" in q:
        ratio = q["maxLimitRequestRatio"][0]
        if ratio < 1:
            causes.append(_bad(ratio_path, shown["maxLimitRequestRatio"], f"ratio {shown['maxLimitRequestRatio']} "
                                                                          f"is less than 1"))
        if "min" in q and "max" in q and q["min"][0] > 0 and ratio > q["max"][0] / q["min"][0]:
            causes.append(_bad(ratio_path, shown["maxLimitRequestRatio"], f"ratio {shown['maxLimitRequestRatio']} is "
                               f"greater than max/min = {float(q['max'][0] / q['min'][0]):f}"))
    both = "default" in q and "defaultRequest" in q
    if _no_overcommit(name) and both and q["default"][0] != q["defaultRequest"][0]:
        causes.append(_bad(f"{path}.defaultRequest[{name}]", shown["defaultRequest"], f"default value "
                           f"{shown['default']} must equal to defaultRequest value {shown['defaultRequest']} in {name}"))
    return causes


def _no_overcommit(name: str) -> bool:
    """Extended resources and hugepages may not be overcommitted (helper.IsOvercommitAllowed is false)."""
    native = "/" not in name or "kubernetes.io/" in name
    return name.startswith("hugepages-") or not native


# ---- ResourceQuota (K8S pkg/apis/core/validation ValidateResourceQuota) ----

def validate_resource_quota(obj: dict) -> list[Cause]:
    spec, causes = obj.get("spec") or {}, []
    for name, raw in (spec.get("hard") or {}).items():
        path = f"spec.hard[{name}]"
        named = _resource_name_errors(path, name, STANDARD_RESOURCES, "must be a standard resource type or fully "
                                                                      "qualified")
        if not named and "/" not in name and name not in QUOTA_RESOURCES and not _hugepages(name):
            named.append(_bad(path, name, "must be a standard resource for quota"))
        causes += named
        value, bad = _quantity(path, raw)
        causes += bad
        if value is not None:
            causes += _quota_value_errors(path, name, value, raw)
    return causes + _scope_errors(spec)


def _quota_value_errors(path: str, name: str, value: Decimal, raw: Any) -> list[Cause]:
    causes = []
    if value < 0:
        causes.append(_bad(path, quantity.show(raw), "must be greater than or equal to 0"))
    integer = name in INTEGER_RESOURCES or ("/" in name and "kubernetes.io/" not in name
                                            and not name.startswith("requests."))
    if integer and value != value.to_integral_value():
        causes.append(_bad(path, quantity.show(raw), "must be an integer"))
    return causes


def _scope_valid_for(scope: str, resource: str) -> bool:
    if scope == "BestEffort":
        return resource == "pods"
    if scope in QUOTA_SCOPES:
        return resource in _POD_COMPUTE
    return True


def _scope_errors(spec: dict) -> list[Cause]:
    scopes, hard = spec.get("scopes") or [], sorted(spec.get("hard") or {})
    causes = []
    for scope in scopes:
        if scope not in QUOTA_SCOPES:
            causes.append(_bad("spec.scopes", scopes, "unsupported scope"))
        causes += [_bad("spec.scopes", scopes, "unsupported scope applied to resource") for k in hard
                   if k in QUOTA_RESOURCES and not _scope_valid_for(scope, k)]
    expressions = (spec.get("scopeSelector") or {}).get("matchExpressions") or []
    path = "spec.scopeSelector.matchExpressions"
    for req in expressions:
        scope, op, values = req.get("scopeName"), req.get("operator"), req.get("values") or []
        if scope not in QUOTA_SCOPES:
            causes.append(_bad(f"{path}.scopeName", scope, "unsupported scope"))
        causes += [_bad(path, spec.get("scopeSelector"), "unsupported scope applied to resource") for k in hard
                   if k in QUOTA_RESOURCES and not _scope_valid_for(scope, k)]
        if scope in ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity") \
                and op != "Exists":
            causes.append(_bad(f"{path}.operator", op, "must be 'Exist' when scope is any of "
                               "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
                               "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
                               "ResourceQuotaScopeCrossNamespacePodAffinity"))
        if op in ("In", "NotIn") and not values:
            causes.append(Cause(f"{path}.values", "Required value: must be at least one value when `operator` is "
                                "'In' or 'NotIn' for scope selector", "FieldValueRequired"))
        elif op in ("Exists", "DoesNotExist") and values:
            causes.append(_bad(f"{path}.values", values, "must be no value when `operator` is 'Exist' or "
                               "'DoesNotExist' for scope selector"))
        elif op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            causes.append(_bad(f"{path}.operator", op, "not a valid selector operator"))
    used = set(scopes) | {r.get("scopeName") for r in expressions}
    for pair in (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating")):
        if set(pair) <= used:
            where = "spec.scopes" if set(pair) <= set(scopes) else path
            causes.append(_bad(where, scopes if where == "spec.scopes" else spec.get("scopeSelector"),
                               "conflicting scopes"))
    return causes
