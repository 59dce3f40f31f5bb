"""Pod (core/v1)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.meta import Condition, K8sModel, LabelSelector, Resource
from api.quantity import Quantity


class EnvVar(K8sModel):
    name: str
    value: str | None = None
    valueFrom: dict | None = None


class ContainerPort(K8sModel):
    containerPort: int = Field(ge=1, le=65535)
    name: str | None = None
    hostPort: int | None = Field(None, ge=1, le=65535)
    hostIP: str | None = None
    protocol: Literal["TCP", "UDP", "SCTP"] | None = None


class ResourceRequirements(K8sModel):
    limits: dict[str, Quantity] | None = None
    requests: dict[str, Quantity] | None = None


class ExecAction(K8sModel):
    command: list[str] | None = None


class HTTPGetAction(K8sModel):
    path: str | None = None
    port: int | str
    host: str | None = None
    scheme: Literal["HTTP", "HTTPS"] | None = None
    httpHeaders: list[dict] | None = None


class TCPSocketAction(K8sModel):
    port: int | str
    host: str | None = None


class Probe(K8sModel):
    exec: ExecAction | None = None
    httpGet: HTTPGetAction | None = None
    tcpSocket: TCPSocketAction | None = None
    grpc: dict | None = None
    initialDelaySeconds: int | None = Field(None, ge=0)
    timeoutSeconds: int | None = Field(None, ge=1)
    periodSeconds: int | None = Field(None, ge=1)
    successThreshold: int | None = Field(None, ge=1)
    failureThreshold: int | None = Field(None, ge=1)
    terminationGracePeriodSeconds: int | None = None


class Container(K8sModel):
    name: str
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    workingDir: str | None = None
    env: list[EnvVar] | None = None
    ports: list[ContainerPort] | None = None
    resources: ResourceRequirements | None = None
    livenessProbe: Probe | None = None
    readinessProbe: Probe | None = None
    startupProbe: Probe | None = None
    imagePullPolicy: Literal["Always", "IfNotPresent", "Never"] | None = None
    restartPolicy: Literal["Always"] | None = None  # init containers only: a sidecar


class Toleration(K8sModel):
    key: str | None = None
    operator: Literal["Exists", "Equal"] | None = None
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None
    tolerationSeconds: int | None = None


class NodeSelectorRequirement(K8sModel):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: list[str] | None = None


class NodeSelectorTerm(K8sModel):
    matchExpressions: list[NodeSelectorRequirement] | None = None
    matchFields: list[NodeSelectorRequirement] | None = None


class NodeSelector(K8sModel):
    nodeSelectorTerms: list[NodeSelectorTerm]


class PreferredSchedulingTerm(K8sModel):
    weight: int = Field(ge=1, le=100)
    preference: NodeSelectorTerm


class NodeAffinity(K8sModel):
    requiredDuringSchedulingIgnoredDuringExecution: NodeSelector | None = None
    preferredDuringSchedulingIgnoredDuringExecution: list[PreferredSchedulingTerm] | None = None


class PodAffinityTerm(K8sModel):
    labelSelector: LabelSelector | None = None
    namespaces: list[str] | None = None
    namespaceSelector: LabelSelector | None = None
    topologyKey: str


class WeightedPodAffinityTerm(K8sModel):
    weight: int = Field(ge=1, le=100)
    podAffinityTerm: PodAffinityTerm


class PodAffinity(K8sModel):
    requiredDuringSchedulingIgnoredDuringExecution: list[PodAffinityTerm] | None = None
    preferredDuringSchedulingIgnoredDuringExecution: list[WeightedPodAffinityTerm] | None = None


class Affinity(K8sModel):
    nodeAffinity: NodeAffinity | None = None
    podAffinity: PodAffinity | None = None
    podAntiAffinity: PodAffinity | None = None


class TopologySpreadConstraint(K8sModel):
    maxSkew: int = Field(ge=1)
    topologyKey: str
    whenUnsatisfiable: Literal["DoNotSchedule", "ScheduleAnyway"]
    labelSelector: LabelSelector | None = None
    minDomains: int | None = None


class PodSpec(K8sModel):
    containers: list[Container]
    initContainers: list[Container] | None = None
    restartPolicy: Literal["Always", "OnFailure", "Never"] | None = None
    terminationGracePeriodSeconds: int | None = None
    activeDeadlineSeconds: int | None = Field(None, ge=1)
    dnsPolicy: str | None = None
    nodeSelector: dict[str, str] | None = None
    nodeName: str | None = None
    schedulerName: str | None = None
    affinity: Affinity | None = None
    tolerations: list[Toleration] | None = None
    priorityClassName: str | None = None
    priority: int | None = None
    preemptionPolicy: Literal["PreemptLowerPriority", "Never"] | None = None
    overhead: dict[str, Quantity] | None = None
    topologySpreadConstraints: list[TopologySpreadConstraint] | None = None
    schedulingGates: list[dict] | None = None
    hostNetwork: bool | None = None


class ContainerStatus(K8sModel):
    name: str
    ready: bool = False
    restartCount: int = 0
    image: str | None = None
    imageID: str | None = None
    containerID: str | None = None
    started: bool | None = None
    state: dict | None = None
    lastState: dict | None = None


class PodStatus(K8sModel):
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] | None = None
    conditions: list[Condition] | None = None
    message: str | None = None
    reason: str | None = None
    hostIP: str | None = None
    podIP: str | None = None
    startTime: str | None = None
    nominatedNodeName: str | None = None
    qosClass: str | None = None
    initContainerStatuses: list[ContainerStatus] | None = None
    containerStatuses: list[ContainerStatus] | None = None


class PodTemplateSpec(K8sModel):
    metadata: dict | None = None
    spec: PodSpec


class Pod(Resource):
    KIND = "Pod"
    spec: PodSpec
    status: PodStatus | None = None


def own_spec(pod: dict) -> dict:
    """A pod whose spec's own fields may be set without changing `pod`: the pod and its spec are new
    dicts, everything below is shared (the admission plugins that call this set spec fields only;
    copying the whole pod three times was a tenth of an apiserver's create)."""
    return {**pod, "spec": dict(pod.get("spec") or {})}
