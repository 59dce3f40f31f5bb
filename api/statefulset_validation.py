"""StatefulSet: SetDefaults_StatefulSet (pkg/apis/apps/v1/defaults.go) and ValidateStatefulSetSpec,
ValidateStatefulSetUpdate and ValidateStatefulSetStatusUpdate (pkg/apis/apps/validation/validation.go)
with Kubernetes' messages. The pod template is checked as a pod with the claim templates as its
volumes, so a mount of a claim template's name resolves."""
from __future__ import annotations

import copy
from dataclasses import replace

from api import names, selectors, storage, storage_validation
from api.apps_validation import _int_or_percent_causes, _invalid
from api.status import Cause

POLICIES = ("OrderedReady", "Parallel")
RETENTION = ("Retain", "Delete")
IMMUTABLE_MESSAGE = ("Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                     "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
UPDATABLE = ("replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
             "minReadySeconds")


def defaults(obj: dict) -> None:
    """SetDefaults_StatefulSet, and SetDefaults_PersistentVolumeClaim on each claim template."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("replicas", 1)
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        strategy.setdefault("rollingUpdate", {}).setdefault("partition", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("minReadySeconds", 0)
    policy = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
    policy.setdefault("whenDeleted", "Retain")
    policy.setdefault("whenScaled", "Retain")
    for template in spec.get("volumeClaimTemplates") or []:
        if isinstance(template, dict):
            storage.pvc_defaults(template)


def _required(path: str, detail: str = "") -> Cause:
    return Cause(path, f"Required value{': ' + detail if detail else ''}", "FieldValueRequired")


def _not_supported(path: str, value, supported: tuple[str, ...]) -> Cause:
    listed = ", ".join(f'"{s}"' for s in supported)
    return Cause(path, f'Unsupported value: "{value or ""}": supported values: {listed}', "FieldValueNotSupported")


def _nonnegative(path: str, value) -> list[Cause]:
    return [_invalid(path, value, "must be greater than or equal to 0")] if isinstance(value, int) and value < 0 \
        else []


def _strategy(strategy: dict) -> list[Cause]:
    path, type_, rolling = "spec.updateStrategy", strategy.get("type"), strategy.get("rollingUpdate")
    if not type_:
        return [_required(path)]
    if type_ == "OnDelete":
        return [] if rolling is None else \
            [_invalid(f"{path}.rollingUpdate", rolling, "only allowed for updateStrategy 'RollingUpdate'")]
    if type_ != "RollingUpdate":
        return [_invalid(path, type_, "must be 'RollingUpdate' or 'OnDelete'")]
    if rolling is None:
        return []
    causes = _nonnegative(f"{path}.rollingUpdate.partition", rolling.get("partition"))
    if rolling.get("maxUnavailable") is not None:
        causes += _int_or_percent_causes(f"{path}.rollingUpdate.maxUnavailable", rolling["maxUnavailable"])
    return causes


def _policies(spec: dict) -> list[Cause]:
    causes, policy = [], spec.get("podManagementPolicy")
    if not policy:
        causes.append(_required("spec.podManagementPolicy"))
    elif policy not in POLICIES:
        causes.append(_invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    for when in ("whenDeleted", "whenScaled") if retention is not None else ():
        if retention.get(when) not in RETENTION:
            causes.append(_not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{when}", retention.get(when),
                                         RETENTION))
    return causes


def _selector(spec: dict) -> list[Cause]:
    selector = spec.get("selector")
    if selector is None:
        return [_required("spec.selector")]
    try:
        parsed = selectors.from_label_selector(selector)
    except ValueError as exc:
        return [_invalid("spec.selector", selector, str(exc))]
    causes = []
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        causes.append(_invalid("spec.selector", selector, "empty selector is invalid for statefulset"))
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not parsed.matches(labels):
        causes.append(_invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    return causes


def _claim_templates(spec: dict) -> list[Cause]:
    """Each claim template validated as a claim, under its own path."""
    causes = []
    for i, template in enumerate(spec.get("volumeClaimTemplates") or []):
        path = f"spec.volumeClaimTemplates[{i}]"
        if not (template.get("metadata") or {}).get("name"):
            causes.append(_required(f"{path}.metadata.name", "name or generateName is required"))
        causes += [replace(c, field=f"{path}.{c.field}") for c in storage_validation.validate_pvc(template)]
    return causes


def with_claim_volumes(spec: dict) -> dict:
    """The template's pod spec with a volume of each claim template's name (what the controller gives
    its pods), for the pod's own validation."""
    tspec = copy.deepcopy((spec.get("template") or {}).get("spec") or {})
    have = {v.get("name") for v in tspec.get("volumes") or []}
    for template in spec.get("volumeClaimTemplates") or []:
        name = (template.get("metadata") or {}).get("name")
        if name and name not in have:
            tspec.setdefault("volumes", []).append({"name": name, "persistentVolumeClaim": {"claimName": name}})
    return tspec


def validate_statefulset(obj: dict) -> list[Cause]:
    """ValidateStatefulSetSpec (the pod template's own checks are validation.pod_spec's)."""
    spec = obj.get("spec") or {}
    tspec = (spec.get("template") or {}).get("spec") or {}
    causes = _policies(spec) + _strategy(spec.get("updateStrategy") or {})
    for field in ("revisionHistoryLimit", "replicas", "minReadySeconds"):
        causes += _nonnegative(f"spec.{field}", spec.get(field))
    causes += _nonnegative("spec.ordinals.start", (spec.get("ordinals") or {}).get("start"))
    service = spec.get("serviceName")
    causes += [_invalid("spec.serviceName", service, e) for e in names.label_errors(service)] if service else []
    causes += _selector(spec)
    policy = tspec.get("restartPolicy", "Always")
    if policy != "Always":
        causes.append(_not_supported("spec.template.spec.restartPolicy", policy, ("Always",)))
    if tspec.get("activeDeadlineSeconds") is not None:
        causes.append(Cause("spec.template.spec.activeDeadlineSeconds",
                            "Forbidden: activeDeadlineSeconds in StatefulSet is not Supported", "FieldValueForbidden"))
    return causes + _claim_templates(spec)


def statefulset_update(old: dict, new: dict) -> list[Cause]:
    """ValidateStatefulSetUpdate: only the updatable fields may change."""
    before = {k: v for k, v in (old.get("spec") or {}).items() if k not in UPDATABLE}
    after = {k: v for k, v in (new.get("spec") or {}).items() if k not in UPDATABLE}
    return [] if before == after else [Cause("spec", IMMUTABLE_MESSAGE, "FieldValueForbidden")]


def statefulset_status_update(old: dict, new: dict) -> list[Cause]:
    """ValidateStatefulSetStatus: counts not negative nor above replicas; collisionCount never decremented."""
    status, causes = new.get("status") or {}, []
    counts = ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas",
              "observedGeneration", "collisionCount")
    for field in counts:
        causes += _nonnegative(f"status.{field}", status.get(field))
    replicas = status.get("replicas", 0)
    for field in ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
        if status.get(field, 0) > replicas:
            causes.append(_invalid(f"status.{field}", status[field], "cannot be greater than status.replicas"))
    if status.get("availableReplicas", 0) > status.get("readyReplicas", 0):
        causes.append(_invalid("status.availableReplicas", status["availableReplicas"],
                               "cannot be greater than status.readyReplicas"))
    before = (old.get("status") or {}).get("collisionCount")
    if before is not None and (status.get("collisionCount") or 0) < before:
        causes.append(_invalid("status.collisionCount", status.get("collisionCount") or 0, "cannot be decremented"))
    return causes
