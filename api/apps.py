"""ReplicaSet, Deployment, DaemonSet, StatefulSet and ControllerRevision (apps/v1)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.meta import Condition, K8sModel, LabelSelector, Resource
from api.pod import PodTemplateSpec
from api.storage import PersistentVolumeClaim

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"  # apps/v1's spec.templateGeneration


class ReplicaSetSpec(K8sModel):
    replicas: int | None = Field(None, ge=0)
    minReadySeconds: int | None = Field(None, ge=0)
    selector: LabelSelector
    template: PodTemplateSpec | None = None


class ReplicaSetStatus(K8sModel):
    replicas: int = 0
    fullyLabeledReplicas: int | None = None
    readyReplicas: int | None = None
    availableReplicas: int | None = None
    observedGeneration: int | None = None
    conditions: list[Condition] | None = None


class ReplicaSet(Resource):
    API_VERSION = "apps/v1"
    KIND = "ReplicaSet"
    spec: ReplicaSetSpec
    status: ReplicaSetStatus | None = None


class RollingUpdateDeployment(K8sModel):
    maxUnavailable: int | str | None = None
    maxSurge: int | str | None = None


class DeploymentStrategy(K8sModel):
    type: Literal["RollingUpdate", "Recreate"] | None = None
    rollingUpdate: RollingUpdateDeployment | None = None


class DeploymentSpec(K8sModel):
    replicas: int | None = Field(None, ge=0)
    selector: LabelSelector
    template: PodTemplateSpec
    strategy: DeploymentStrategy | None = None
    minReadySeconds: int | None = Field(None, ge=0)
    revisionHistoryLimit: int | None = Field(None, ge=0)
    paused: bool | None = None
    progressDeadlineSeconds: int | None = Field(None, ge=1)


class DeploymentStatus(K8sModel):
    observedGeneration: int | None = None
    replicas: int | None = None
    updatedReplicas: int | None = None
    readyReplicas: int | None = None
    availableReplicas: int | None = None
    unavailableReplicas: int | None = None
    collisionCount: int | None = None
    conditions: list[Condition] | None = None


class Deployment(Resource):
    API_VERSION = "apps/v1"
    KIND = "Deployment"
    spec: DeploymentSpec
    status: DeploymentStatus | None = None


class RollingUpdateDaemonSet(K8sModel):
    maxUnavailable: int | str | None = None
    maxSurge: int | str | None = None


class DaemonSetUpdateStrategy(K8sModel):
    type: str | None = None
    rollingUpdate: RollingUpdateDaemonSet | None = None


class DaemonSetSpec(K8sModel):
    selector: LabelSelector
    template: PodTemplateSpec
    updateStrategy: DaemonSetUpdateStrategy | None = None
    minReadySeconds: int | None = None
    revisionHistoryLimit: int | None = None


class DaemonSetStatus(K8sModel):
    currentNumberScheduled: int = 0
    numberMisscheduled: int = 0
    desiredNumberScheduled: int = 0
    numberReady: int = 0
    observedGeneration: int | None = None
    updatedNumberScheduled: int | None = None
    numberAvailable: int | None = None
    numberUnavailable: int | None = None
    collisionCount: int | None = None
    conditions: list[Condition] | None = None


class DaemonSet(Resource):
    API_VERSION = "apps/v1"
    KIND = "DaemonSet"
    spec: DaemonSetSpec
    status: DaemonSetStatus | None = None


class ControllerRevision(Resource):
    """A template's snapshot in a controller's history: `data` is the patch that restores it."""
    API_VERSION = "apps/v1"
    KIND = "ControllerRevision"
    data: dict | None = None
    revision: int = 0


class RollingUpdateStatefulSetStrategy(K8sModel):
    partition: int | None = None
    maxUnavailable: int | str | None = None


class StatefulSetUpdateStrategy(K8sModel):
    type: str | None = None
    rollingUpdate: RollingUpdateStatefulSetStrategy | None = None


class StatefulSetPersistentVolumeClaimRetentionPolicy(K8sModel):
    whenDeleted: str | None = None
    whenScaled: str | None = None


class StatefulSetOrdinals(K8sModel):
    start: int = 0


class StatefulSetSpec(K8sModel):
    replicas: int | None = None
    selector: LabelSelector
    template: PodTemplateSpec
    volumeClaimTemplates: list[PersistentVolumeClaim] | None = None
    serviceName: str | None = None
    podManagementPolicy: str | None = None
    updateStrategy: StatefulSetUpdateStrategy | None = None
    revisionHistoryLimit: int | None = None
    minReadySeconds: int | None = None
    persistentVolumeClaimRetentionPolicy: StatefulSetPersistentVolumeClaimRetentionPolicy | None = None
    ordinals: StatefulSetOrdinals | None = None


class StatefulSetStatus(K8sModel):
    observedGeneration: int | None = None
    replicas: int = 0
    readyReplicas: int | None = None
    currentReplicas: int | None = None
    updatedReplicas: int | None = None
    currentRevision: str | None = None
    updateRevision: str | None = None
    collisionCount: int | None = None
    conditions: list[Condition] | None = None
    availableReplicas: int | None = None


class StatefulSet(Resource):
    API_VERSION = "apps/v1"
    KIND = "StatefulSet"
    spec: StatefulSetSpec
    status: StatefulSetStatus | None = None
