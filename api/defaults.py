"""Defaults Kubernetes applies on decode and in its defaulting admission plugins."""
from __future__ import annotations

from typing import Any, Callable

from api import (admissionpolicy, admissionregistration, apiextensions, apps_validation, autoscaling, batch, config,
                 cronjob, pdb, rbac, statefulset_validation, storage)


def _pull_policy(image: str | None) -> str:
    if not image:
        return "IfNotPresent"
    name = image.split("@")[0]
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
    return "Always" if tag in ("", "latest") and "@" not in image else "IfNotPresent"


def _probe(probe: dict | None) -> None:
    if probe:
        probe.setdefault("timeoutSeconds", 1)
        probe.setdefault("periodSeconds", 10)
        probe.setdefault("successThreshold", 1)
        probe.setdefault("failureThreshold", 3)


def _container(c: dict) -> None:
    c.setdefault("imagePullPolicy", _pull_policy(c.get("image")))
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    for port in c.get("ports") or []:
        port.setdefault("protocol", "TCP")
    res = c.get("resources")
    if res and res.get("limits"):
        requests = res.setdefault("requests", {})
        for name, qty in res["limits"].items():
            requests.setdefault(name, qty)
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(c.get(key))


def pod_spec(spec: dict) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        _container(c)


def pod(obj: dict) -> None:
    spec = obj["spec"]
    pod_spec(spec)  # priority and the not-ready/unreachable tolerations come from admission (Priority,
    spec.setdefault("enableServiceLinks", True)  # DefaultTolerationSeconds), as in Kubernetes


def node(obj: dict) -> None:
    obj.setdefault("spec", {})
    status = obj.setdefault("status", {})
    if status.get("capacity") and not status.get("allocatable"):
        status["allocatable"] = dict(status["capacity"])


def namespace(obj: dict) -> None:
    obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    obj.setdefault("status", {}).setdefault("phase", "Active")


def _template(spec: dict) -> None:
    template = spec.get("template")
    if template and template.get("spec"):
        pod_spec(template["spec"])


def replicaset(obj: dict) -> None:
    spec = obj["spec"]
    spec.setdefault("replicas", 1)
    spec.setdefault("minReadySeconds", 0)
    _template(spec)


def deployment(obj: dict) -> None:
    spec = obj["spec"]
    spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    spec.setdefault("minReadySeconds", 0)
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    _template(spec)


def job(obj: dict) -> None:
    batch.defaults(obj)
    _template(obj["spec"])


def cron_job(obj: dict) -> None:
    cronjob.defaults(obj)
    _template((obj["spec"].get("jobTemplate") or {}).get("spec") or {})


def replication_controller(obj: dict) -> None:
    """SetDefaults_ReplicationController: replicas 1; an empty selector, and empty labels, are the
    template's labels."""
    spec = obj.setdefault("spec", {})
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if labels:
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        meta = obj.setdefault("metadata", {})
        if not meta.get("labels"):
            meta["labels"] = dict(labels)
    spec.setdefault("replicas", 1)
    spec.setdefault("minReadySeconds", 0)
    _template(spec)


def daemonset(obj: dict) -> None:
    apps_validation.defaults(obj)
    _template(obj["spec"])


def statefulset(obj: dict) -> None:
    statefulset_validation.defaults(obj)
    _template(obj["spec"])


def event(obj: dict) -> None:
    obj.setdefault("type", "Normal")
    obj.setdefault("count", 1)


def service(obj: dict) -> None:
    """SetDefaults_Service, single-stack IPv4."""
    spec = obj.setdefault("spec", {})
    kind = spec.setdefault("type", "ClusterIP")
    affinity = spec.setdefault("sessionAffinity", "None")
    if affinity == "None":
        spec.pop("sessionAffinityConfig", None)
    elif affinity == "ClientIP":
        client = spec.setdefault("sessionAffinityConfig", {}).setdefault("clientIP", {})
        client.setdefault("timeoutSeconds", 10800)
    for port in spec.get("ports") or []:
        port.setdefault("protocol", "TCP")
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port")
    if kind == "ExternalName":
        return
    if kind in ("NodePort", "LoadBalancer") or spec.get("externalIPs"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    spec.setdefault("internalTrafficPolicy", "Cluster")
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    spec.setdefault("ipFamilies", ["IPv4"])
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]


def endpoint_slice(obj: dict) -> None:
    for port in obj.get("ports") or []:
        port.setdefault("protocol", "TCP")


DEFAULTERS: dict[str, Callable[[dict], Any]] = {
    "Pod": pod, "Node": node, "Namespace": namespace, "ReplicaSet": replicaset,
    "Deployment": deployment, "DaemonSet": daemonset, "StatefulSet": statefulset, "Job": job, "CronJob": cron_job, "ReplicationController": replication_controller,
    "PodTemplate": _template, "Event": event, "Service": service, "EndpointSlice": endpoint_slice,
    "ConfigMap": config.configmap, "Secret": config.secret, "PodDisruptionBudget": pdb.defaults,
    "HorizontalPodAutoscaler": autoscaling.defaults,
    "PersistentVolume": storage.pv_defaults, "PersistentVolumeClaim": storage.pvc_defaults,
    "StorageClass": storage.class_defaults,
    "RoleBinding": rbac.set_binding_defaults, "ClusterRoleBinding": rbac.set_binding_defaults,
    "CustomResourceDefinition": apiextensions.set_defaults,
    "ValidatingWebhookConfiguration": admissionregistration.validating_defaults,
    "MutatingWebhookConfiguration": admissionregistration.mutating_defaults,
    "ValidatingAdmissionPolicy": admissionpolicy.policy_defaults,
    "ValidatingAdmissionPolicyBinding": admissionpolicy.binding_defaults,
}


def limit_range_item(item: dict) -> dict:
    """SetDefaults_LimitRangeItem (applied on decode): for `Container`, a missing default limit is the
    max, a missing default request is the default limit, else the min."""
    if item.get("type") != "Container":
        return item
    item = dict(item)
    default = item["default"] = dict(item.get("default") or {})
    request = item["defaultRequest"] = dict(item.get("defaultRequest") or {})
    for source, target in ((item.get("max"), default), (default, request), (item.get("min"), request)):
        for name, q in (source or {}).items():
            target.setdefault(name, q)
    return item


def apply(kind: str, obj: dict) -> None:
    defaulter = DEFAULTERS.get(kind)
    if defaulter:
        defaulter(obj)
