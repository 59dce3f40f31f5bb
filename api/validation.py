"""Semantic validation after the models parsed: names, labels, pods, workload templates."""
from __future__ import annotations

from typing import Callable, Sequence

from api import (admissionpolicy_validation, apps_validation, autoscaling_validation, batch_validation,
                 config_validation, crd_validation, cronjob_validation, ingress_validation, names, pdb_validation,
                 policy_validation, quantity, rbac, replication_validation, selectors, service_validation,
                 statefulset_validation, storage_validation, volume_validation, webhook_validation)
from api.registry import KindInfo
from api.status import Cause

TOTAL_ANNOTATION_BYTES = 256 * 1024


def _invalid(path: str, value, message: str) -> Cause:
    return Cause(path, f"Invalid value: {_show(value)}: {message}")


def _show(value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _required(path: str) -> Cause:
    return Cause(path, "Required value", "FieldValueRequired")


def _map_keys(path: str, labels: dict | None, values: bool) -> list[Cause]:
    causes = []
    for key, val in (labels or {}).items():
        causes += [_invalid(path, key, e) for e in names.qualified_name_errors(key)]
        if values:
            causes += [_invalid(f"{path}[{key}]", val, e) for e in names.label_value_errors(val)]
    return causes


def name_rule(info: KindInfo) -> Callable[[str], Sequence[str]]:
    if info.name_is_label:
        return names.label_errors
    if info.name_is_dns1035:
        return names.dns1035_errors
    return names.path_segment_errors if info.name_is_path else names.subdomain_errors


def metadata(info: KindInfo, meta: dict) -> list[Cause]:
    causes: list[Cause] = []
    name, prefix = meta.get("name"), meta.get("generateName")
    check = name_rule(info)
    if name:
        causes += [_invalid("metadata.name", name, e) for e in check(name)]
    elif prefix:
        causes += [_invalid("metadata.generateName", prefix, e)
                   for e in names.generate_name_prefix_errors(prefix, check)]
    else:
        causes.append(Cause("metadata.name", "Required value: name or generateName is required",
                            "FieldValueRequired"))
    namespace = meta.get("namespace")
    if info.namespaced and not namespace:
        causes.append(_required("metadata.namespace"))
    elif info.namespaced:
        causes += [_invalid("metadata.namespace", namespace, e) for e in names.label_errors(namespace)]
    elif namespace:
        causes.append(Cause("metadata.namespace", "Forbidden: not allowed on this type", "FieldValueForbidden"))
    causes += _map_keys("metadata.labels", meta.get("labels"), values=True)
    causes += _map_keys("metadata.annotations", meta.get("annotations"), values=False)
    size = sum(len(k) + len(v) for k, v in (meta.get("annotations") or {}).items())
    if size > TOTAL_ANNOTATION_BYTES:
        causes.append(Cause("metadata.annotations", f"Too long: must have at most {TOTAL_ANNOTATION_BYTES} bytes",
                            "FieldValueTooLong"))
    controllers = [r for r in meta.get("ownerReferences") or [] if r.get("controller")]
    if len(controllers) > 1:
        causes.append(_invalid("metadata.ownerReferences", len(controllers),
                               "Only one reference can have Controller set to true"))
    return causes


def _containers(path: str, containers: list[dict], seen: set[str]) -> list[Cause]:
    causes = []
    for i, c in enumerate(containers):
        here = f"{path}[{i}]"
        cname = c.get("name", "")
        causes += [_invalid(f"{here}.name", cname, e) for e in names.label_errors(cname)]
        if cname in seen:
            causes.append(Cause(f"{here}.name", f'Duplicate value: "{cname}"', "FieldValueDuplicate"))
        seen.add(cname)
        if not c.get("image"):
            causes.append(_required(f"{here}.image"))
        causes += _resources(f"{here}.resources", c.get("resources") or {})
    return causes


def _resources(path: str, res: dict) -> list[Cause]:
    causes = []
    limits, requests = res.get("limits") or {}, res.get("requests") or {}
    for kind, values in (("limits", limits), ("requests", requests)):
        for name, qty in values.items():
            if quantity.parse_quantity(qty) < 0:
                causes.append(_invalid(f"{path}.{kind}[{name}]", qty, "must be greater than or equal to 0"))
    for name, qty in requests.items():
        if name in limits and quantity.parse_quantity(qty) > quantity.parse_quantity(limits[name]):
            causes.append(_invalid(f"{path}.requests", qty, f"must be less than or equal to {name} limit of "
                                                            f"{limits[name]}"))
    return causes


def pod_spec(path: str, spec: dict) -> list[Cause]:
    containers = spec.get("containers") or []
    if not containers:
        return [_required(f"{path}.containers")]
    seen: set[str] = set()
    causes = _containers(f"{path}.initContainers", spec.get("initContainers") or [], seen)
    causes += _containers(f"{path}.containers", containers, seen)
    causes += volume_validation.pod_volumes(path, spec)
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and grace < 0:
        causes.append(_invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be greater than or equal to 0"))
    for i, t in enumerate(spec.get("tolerations") or []):
        if t.get("operator") == "Exists" and t.get("value"):
            causes.append(_invalid(f"{path}.tolerations[{i}].operator", t["value"],
                                   "value must be empty when `operator` is 'Exists'"))
    return causes


def pod(obj: dict) -> list[Cause]:
    return pod_spec("spec", obj.get("spec") or {})


def _workload(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    causes = []
    try:
        parsed = selectors.from_label_selector(selector)
    except ValueError as exc:
        return [_invalid("spec.selector", selector, str(exc))]
    if parsed.empty or parsed.nothing:
        causes.append(Cause("spec.selector", "Invalid value: empty selector is invalid for deployment"))
    template = spec.get("template")
    if template is None:
        return causes + [_required("spec.template")]
    labels = (template.get("metadata") or {}).get("labels") or {}
    if not parsed.empty and not parsed.matches(labels):
        causes.append(_invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    tspec = template.get("spec") or {}
    policy = tspec.get("restartPolicy", "Always")
    if policy != "Always":
        causes.append(Cause("spec.template.spec.restartPolicy", f'Unsupported value: "{policy}": supported values: '
                            f'"Always"', "FieldValueNotSupported"))
    return causes + pod_spec("spec.template.spec", tspec)


def _job(obj: dict) -> list[Cause]:
    template = (obj.get("spec") or {}).get("template") or {}
    return batch_validation.validate_job(obj) + pod_spec("spec.template.spec", template.get("spec") or {})


def _daemonset(obj: dict) -> list[Cause]:
    template = (obj.get("spec") or {}).get("template") or {}
    return apps_validation.validate_daemonset(obj) + pod_spec("spec.template.spec", template.get("spec") or {})


def _statefulset(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    return statefulset_validation.validate_statefulset(obj) + \
        pod_spec("spec.template.spec", statefulset_validation.with_claim_volumes(spec))


def _cronjob(obj: dict) -> list[Cause]:
    template = ((obj.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    return cronjob_validation.validate_cronjob(obj) + \
        pod_spec("spec.jobTemplate.spec.template.spec", (template.get("template") or {}).get("spec") or {})


VALIDATORS: dict[str, Callable[[dict], list[Cause]]] = {
    "CustomResourceDefinition": crd_validation.validate_crd,
    "ValidatingWebhookConfiguration": webhook_validation.validate_validating,
    "MutatingWebhookConfiguration": webhook_validation.validate_mutating,
    "Pod": pod, "ReplicaSet": _workload, "Deployment": _workload, "Job": _job, "CronJob": _cronjob,
    "DaemonSet": _daemonset, "StatefulSet": _statefulset, "ControllerRevision": apps_validation.validate_controller_revision,
    "ReplicationController": lambda obj: replication_validation.validate_rc(obj, pod_spec),
    "PodTemplate": lambda obj: replication_validation.validate_pod_template(obj, pod_spec),
    "Role": rbac.validate_role, "ClusterRole": rbac.validate_cluster_role,
    "RoleBinding": rbac.validate_role_binding, "ClusterRoleBinding": rbac.validate_cluster_role_binding,
    "PriorityClass": policy_validation.validate_priority_class, "LimitRange": policy_validation.validate_limit_range,
    "ResourceQuota": policy_validation.validate_resource_quota, "Service": service_validation.validate_service,
    "EndpointSlice": service_validation.validate_endpoint_slice, "Ingress": ingress_validation.validate_ingress,
    "IngressClass": ingress_validation.validate_ingress_class,
    "ConfigMap": config_validation.validate_configmap, "Secret": config_validation.validate_secret,
    "PodDisruptionBudget": pdb_validation.validate_pdb,
    "HorizontalPodAutoscaler": autoscaling_validation.validate_hpa,
    "PersistentVolume": storage_validation.validate_pv, "PersistentVolumeClaim": storage_validation.validate_pvc,
    "StorageClass": storage_validation.validate_class,
    "ValidatingAdmissionPolicy": admissionpolicy_validation.validate_policy,
    "ValidatingAdmissionPolicyBinding": admissionpolicy_validation.validate_binding,
}


def validate(info: KindInfo, obj: dict) -> list[Cause]:
    causes = metadata(info, obj.get("metadata") or {})
    check = VALIDATORS.get(info.kind)
    if check:
        causes += check(obj)
    return causes
