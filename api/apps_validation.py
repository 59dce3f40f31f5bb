"""DaemonSet and ControllerRevision: SetDefaults_DaemonSet (pkg/apis/apps/v1/defaults.go) and the
validation of pkg/apis/apps/validation/validation.go with Kubernetes' messages: the selector and the
template's labels, restartPolicy Always, the update strategy's maxUnavailable/maxSurge, what an
update may not change."""
from __future__ import annotations

import re

from api import selectors
from api.status import Cause

STRATEGIES = ("RollingUpdate", "OnDelete")
PERCENT = re.compile(r"^[0-9]+%$")
PERCENT_MESSAGE = ("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
                   "regex used for validation is '[0-9]+%')")


def _invalid(path: str, value, message: str) -> Cause:
    return Cause(path, f"Invalid value: {_show(value)}: {message}")


def _show(value) -> str:
    return f'"{value}"' if isinstance(value, str) and not PERCENT.match(value) else str(value)


def defaults(obj: dict) -> None:
    """SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, history of 10."""
    spec = obj.setdefault("spec", {})
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("minReadySeconds", 0)


def int_or_percent(value) -> int:
    """getIntOrPercentValue: the number of a percent, or the integer."""
    if isinstance(value, str):
        return int(value[:-1]) if PERCENT.match(value) else 0
    return int(value or 0)


def _int_or_percent_causes(path: str, value) -> list[Cause]:
    """ValidatePositiveIntOrPercent and IsNotMoreThan100Percent."""
    if isinstance(value, str):
        if not PERCENT.match(value):
            return [_invalid(path, value, PERCENT_MESSAGE)]
        return [_invalid(path, value, "must not be greater than 100%")] if int(value[:-1]) > 100 else []
    if isinstance(value, int) and value < 0:
        return [_invalid(path, value, "must be greater than or equal to 0")]
    return []


def _rolling(path: str, rolling: dict) -> list[Cause]:
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    causes = _int_or_percent_causes(f"{path}.maxUnavailable", unavailable)
    causes += _int_or_percent_causes(f"{path}.maxSurge", surge)
    has_unavailable, has_surge = int_or_percent(unavailable) != 0, int_or_percent(surge) != 0
    if has_unavailable and has_surge:
        causes.append(_invalid(f"{path}.maxSurge", surge, "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        causes.append(Cause(f"{path}.maxUnavailable", "Required value: cannot be 0 when maxSurge is 0",
                            "FieldValueRequired"))
    return causes


def _strategy(strategy: dict) -> list[Cause]:
    path, type_ = "spec.updateStrategy", strategy.get("type")
    if type_ == "OnDelete":
        return []
    if type_ != "RollingUpdate":
        return [Cause(path, f'Unsupported value: "{type_ or ""}": supported values: "RollingUpdate", "OnDelete"',
                      "FieldValueNotSupported")]
    if strategy.get("rollingUpdate") is None:
        return [Cause(f"{path}.rollingUpdate", "Required value", "FieldValueRequired")]
    return _rolling(f"{path}.rollingUpdate", strategy["rollingUpdate"])


def _selector(spec: dict) -> list[Cause]:
    selector = spec.get("selector")
    try:
        parsed = selectors.from_label_selector(selector)
    except ValueError as exc:
        return [_invalid("spec.selector", selector, str(exc))]
    causes = []
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not parsed.matches(labels):
        causes.append(_invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    if selector is not None and not (selector.get("matchLabels") or selector.get("matchExpressions")):
        causes.append(_invalid("spec.selector", selector, "empty selector is invalid for daemonset"))
    return causes


def validate_daemonset(obj: dict) -> list[Cause]:
    """ValidateDaemonSetSpec (the pod template's own checks are validation.pod_spec's)."""
    spec = obj.get("spec") or {}
    tspec = (spec.get("template") or {}).get("spec") or {}
    causes = _selector(spec)
    policy = tspec.get("restartPolicy", "Always")
    if policy != "Always":
        causes.append(Cause("spec.template.spec.restartPolicy",
                            f'Unsupported value: "{policy}": supported values: "Always"', "FieldValueNotSupported"))
    if tspec.get("activeDeadlineSeconds") is not None:
        causes.append(Cause("spec.template.spec.activeDeadlineSeconds",
                            "Forbidden: activeDeadlineSeconds in DaemonSet is not Supported", "FieldValueForbidden"))
    for field in ("minReadySeconds", "revisionHistoryLimit"):
        if isinstance(spec.get(field), int) and spec[field] < 0:
            causes.append(_invalid(f"spec.{field}", spec[field], "must be greater than or equal to 0"))
    return causes + _strategy(spec.get("updateStrategy") or {})


def daemonset_update(old: dict, new: dict) -> list[Cause]:
    """ValidateDaemonSetUpdate: the selector stays."""
    before, after = (old.get("spec") or {}).get("selector"), (new.get("spec") or {}).get("selector")
    return [] if before == after else [_invalid("spec.selector", after, "field is immutable")]


def validate_controller_revision(obj: dict) -> list[Cause]:
    causes = []
    if obj.get("data") is None:
        causes.append(Cause("data", "Required value: data is mandatory", "FieldValueRequired"))
    if isinstance(obj.get("revision"), int) and obj["revision"] < 0:
        causes.append(_invalid("revision", obj["revision"], "must be greater than or equal to 0"))
    return causes


def controller_revision_update(old: dict, new: dict) -> list[Cause]:
    """ValidateControllerRevisionUpdate: data is immutable."""
    return [] if old.get("data") == new.get("data") else [_invalid("data", "", "field is immutable")]
