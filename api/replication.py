"""ReplicationController and PodTemplate (v1): the core group's older ReplicaSet, whose selector is a
plain map of labels, and a named pod template with no controller. Validation is
`api/replication_validation.py`; the RC controller is the ReplicaSet controller's, through
`actors/controllers/replication.py`."""
from __future__ import annotations

from pydantic import Field

from api.apps import ReplicaSetStatus
from api.meta import K8sModel, Resource
from api.pod import PodTemplateSpec


class ReplicationControllerSpec(K8sModel):
    replicas: int | None = Field(None, ge=0)
    minReadySeconds: int | None = Field(None, ge=0)
    selector: dict[str, str] | None = None
    template: PodTemplateSpec | None = None


class ReplicationController(Resource):
    API_VERSION = "v1"
    KIND = "ReplicationController"
    spec: ReplicationControllerSpec | None = None
    status: ReplicaSetStatus | None = None


class PodTemplate(Resource):
    API_VERSION = "v1"
    KIND = "PodTemplate"
    template: PodTemplateSpec | None = None


def as_label_selector(rc: dict) -> dict:
    """An RC's plain-map selector as a LabelSelector (the adapter Kubernetes' RC controller uses)."""
    return {"matchLabels": dict((rc.get("spec") or {}).get("selector") or {})}
