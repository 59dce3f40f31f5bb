"""What an update may change of a stored object: Kubernetes' ValidatePodUpdate rules for a pod's spec."""
from __future__ import annotations

import copy

from api import (apps_validation, batch_validation, config_validation, crd_validation, ingress_validation,
                 pdb_validation, policy_validation, rbac, service_validation, statefulset_validation, storage_validation)
from api.gojson import go_key
from api.status import Cause

POD_SPEC_FORBIDDEN = (
    "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
    "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")


def pod_spec_update(old: dict, new: dict) -> list[Cause]:
    """Causes why `new` may not replace `old` (both defaulted pod specs); empty when it may."""
    causes = _tolerations(old.get("tolerations") or [], new.get("tolerations") or [])
    deadline_old, deadline_new = old.get("activeDeadlineSeconds"), new.get("activeDeadlineSeconds")
    if deadline_old is not None and (deadline_new is None or deadline_new > deadline_old):
        causes.append(Cause("spec.activeDeadlineSeconds", f"Invalid value: {deadline_new}: must be less than or "
                                                          f"equal to the previous value {deadline_old}"))
    changed = _changed("spec", _mutable_as(old, new), old)
    if changed:
        causes.append(Cause("spec", f"{POD_SPEC_FORBIDDEN}; changed: {', '.join(changed)}", "FieldValueForbidden"))
    return causes


def _mutable_as(old: dict, new: dict) -> dict:
    """`new` with the fields an update may change set back to `old`'s values."""
    masked = copy.deepcopy(new)
    for field in ("containers", "initContainers"):
        images = [c.get("image") for c in old.get(field) or []]
        for container, image in zip(masked.get(field) or [], images):
            container["image"] = image
    for field in ("activeDeadlineSeconds", "tolerations", "schedulingGates"):
        _copy_field(old, masked, field)
    grace_old, grace_new = old.get("terminationGracePeriodSeconds"), new.get("terminationGracePeriodSeconds")
    if grace_old is not None and grace_old < 0 and grace_new == 1:
        masked["terminationGracePeriodSeconds"] = grace_old
    return masked


def _copy_field(source: dict, target: dict, field: str) -> None:
    if field in source:
        target[field] = copy.deepcopy(source[field])
    else:
        target.pop(field, None)


def _tolerations(old: list[dict], new: list[dict]) -> list[Cause]:
    """Every old toleration must stay, compared by value: one hashed pass (a scan of `new` for each
    old toleration made an update of a pod with thousands of them cost seconds of the apiserver)."""
    kept = {go_key(t) for t in new}
    missing = [t for t in old if go_key(t) not in kept]
    return [Cause("spec.tolerations", f"Forbidden: existing toleration can not be modified except its "
                                      f"tolerationSeconds: {t}", "FieldValueForbidden") for t in missing]


def _changed(path: str, new, old) -> list[str]:
    """The paths where `new` differs from `old`, as deep as both are maps."""
    if isinstance(new, dict) and isinstance(old, dict):
        out: list[str] = []
        for key in sorted(set(new) | set(old)):
            out += _changed(f"{path}.{key}", new.get(key), old.get(key))
        return out
    return [] if new == old else [path]


def update_causes(kind: str, old: dict, new: dict) -> list[Cause]:
    """What an update may not change of a kind's stored object (immutable fields)."""
    check = UPDATE_CHECKS.get(kind)
    return check(old, new) if check else []


def status_update_causes(kind: str, old: dict, new: dict) -> list[Cause]:
    """What a status update may not change (a Job's terminal conditions and counters)."""
    check = STATUS_CHECKS.get(kind)
    return check(old, new) if check else []


def node_update(old: dict, new: dict) -> list[Cause]:
    """A node's pod CIDRs, once given by the node IPAM controller, stay (ValidateNodeUpdate)."""
    before, after = (old.get("spec") or {}).get("podCIDRs") or [], (new.get("spec") or {}).get("podCIDRs") or []
    if before and before != after:
        return [Cause("spec.podCIDRs", 'Forbidden: node updates may not change podCIDR except from "" to valid',
                      "FieldValueForbidden")]
    return []


UPDATE_CHECKS = {"CustomResourceDefinition": crd_validation.update_causes,
                 "RoleBinding": rbac.role_ref_update, "ClusterRoleBinding": rbac.role_ref_update,
                 "PriorityClass": lambda o, n: policy_validation.validate_priority_class_update(n, o),
                 "Service": service_validation.service_update, "Node": node_update,
                 "EndpointSlice": service_validation.endpoint_slice_update,
                 "IngressClass": ingress_validation.ingress_class_update,
                 "Job": batch_validation.job_update, "DaemonSet": apps_validation.daemonset_update,
                 "StatefulSet": statefulset_validation.statefulset_update,
                 "ControllerRevision": apps_validation.controller_revision_update, "ConfigMap": config_validation.configmap_update,
                 "Secret": config_validation.secret_update, "PersistentVolume": storage_validation.pv_update,
                 "PersistentVolumeClaim": storage_validation.pvc_update, "StorageClass": storage_validation.class_update}
STATUS_CHECKS = {"Job": batch_validation.job_status_update,
                 "StatefulSet": statefulset_validation.statefulset_status_update,
                 "PodDisruptionBudget": pdb_validation.pdb_status_update}
