"""ReplicationController and PodTemplate validation (pkg/apis/core/validation
ValidateReplicationControllerSpec, ValidatePodTemplate) with Kubernetes' messages."""
from __future__ import annotations

from typing import Callable

from api.status import Cause

PodSpecCheck = Callable[[str, dict], list[Cause]]


def _show_map(labels: dict) -> str:
    return "map[" + " ".join(f"{k}:{v}" for k, v in sorted(labels.items())) + "]"


def validate_rc(obj: dict, pod_spec: PodSpecCheck) -> list[Cause]:
    spec = obj.get("spec") or {}
    selector = spec.get("selector") or {}
    causes = []
    if not selector:
        causes.append(Cause("spec.selector", "Required value", "FieldValueRequired"))
    replicas = spec.get("replicas")
    if isinstance(replicas, int) and replicas < 0:
        causes.append(Cause("spec.replicas", f"Invalid value: {replicas}: must be greater than or equal to 0"))
    template = spec.get("template")
    if template is None:
        return causes + [Cause("spec.template", "Required value", "FieldValueRequired")]
    labels = (template.get("metadata") or {}).get("labels") or {}
    if selector and not selector.items() <= labels.items():
        causes.append(Cause("spec.template.metadata.labels", f"Invalid value: {_show_map(labels)}: "
                            "`selector` does not match template `labels`"))
    tspec = template.get("spec") or {}
    policy = tspec.get("restartPolicy", "Always")
    if policy != "Always":
        causes.append(Cause("spec.template.spec.restartPolicy", f'Unsupported value: "{policy}": supported '
                            'values: "Always"', "FieldValueNotSupported"))
    if tspec.get("activeDeadlineSeconds") is not None:
        causes.append(Cause("spec.template.spec.activeDeadlineSeconds",
                            "Forbidden: activeDeadlineSeconds in ReplicationController is not Supported",
                            "FieldValueForbidden"))
    return causes + pod_spec("spec.template.spec", tspec)


def validate_pod_template(obj: dict, pod_spec: PodSpecCheck) -> list[Cause]:
    template = obj.get("template")
    if template is None:
        return [Cause("template", "Required value", "FieldValueRequired")]
    return pod_spec("template.spec", template.get("spec") or {})
