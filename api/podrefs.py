"""The ConfigMaps, Secrets and PersistentVolumeClaims a pod references (the node authorizer's graph edges
pod -> configmap, pod -> secret and pod -> pvc, `plugin/pkg/auth/authorizer/node/graph_populator.go`): its containers' `env`
(`configMapKeyRef`, `secretKeyRef`) and `envFrom`, its volumes (`configMap`, `secret`, `projected`
sources) and its `imagePullSecrets`."""
from __future__ import annotations

CONFIGMAP, SECRET, CLAIM = "ConfigMap", "Secret", "PersistentVolumeClaim"


def _containers(spec: dict) -> list[dict]:
    return [*(spec.get("initContainers") or []), *(spec.get("containers") or []),
            *(spec.get("ephemeralContainers") or [])]


def container_refs(container: dict) -> set[tuple[str, str]]:
    """(kind, name) of each object one container's environment reads."""
    refs = set()
    for var in container.get("env") or []:
        source = var.get("valueFrom") or {}
        if (source.get("configMapKeyRef") or {}).get("name"):
            refs.add((CONFIGMAP, source["configMapKeyRef"]["name"]))
        if (source.get("secretKeyRef") or {}).get("name"):
            refs.add((SECRET, source["secretKeyRef"]["name"]))
    for source in container.get("envFrom") or []:
        if (source.get("configMapRef") or {}).get("name"):
            refs.add((CONFIGMAP, source["configMapRef"]["name"]))
        if (source.get("secretRef") or {}).get("name"):
            refs.add((SECRET, source["secretRef"]["name"]))
    return refs


def volume_refs(volume: dict) -> set[tuple[str, str]]:
    """(kind, name) of each object one volume projects."""
    refs = set()
    sources = [volume, *((volume.get("projected") or {}).get("sources") or [])]
    for source in sources:
        if (source.get("configMap") or {}).get("name"):
            refs.add((CONFIGMAP, source["configMap"]["name"]))
        if (source.get("secret") or {}).get("secretName"):
            refs.add((SECRET, source["secret"]["secretName"]))
        if (source.get("secret") or {}).get("name"):  # a projected source names it `name`
            refs.add((SECRET, source["secret"]["name"]))
    if (volume.get("persistentVolumeClaim") or {}).get("claimName"):  # the graph's pod -> pvc edge
        refs.add((CLAIM, volume["persistentVolumeClaim"]["claimName"]))
    return refs


def pod_refs(pod: dict, volumes: bool = True) -> set[tuple[str, str]]:
    """(kind, name) of every ConfigMap and Secret the pod references (its volumes' only if `volumes`)."""
    spec = pod.get("spec") or {}
    refs = {(SECRET, s["name"]) for s in spec.get("imagePullSecrets") or [] if s.get("name")}
    for container in _containers(spec):
        refs |= container_refs(container)
    for volume in spec.get("volumes") or [] if volumes else ():
        refs |= volume_refs(volume)
    return refs
