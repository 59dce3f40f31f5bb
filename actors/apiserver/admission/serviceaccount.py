"""The ServiceAccount admission plugin: every pod runs as a service account that exists (`default`
unless it names one), takes that account's image pull secrets, and (unless automountServiceAccountToken
is false on the pod or the account) gets the `kube-api-access-<5>` projected volume — a bound token the
kubelet requests, kube-root-ca.crt's ca.crt, the namespace — mounted read-only at
/var/run/secrets/kubernetes.io/serviceaccount in every init and app container that has nothing mounted
there; mirror pods reference no account and no secret."""
from __future__ import annotations

import random
from typing import Iterator

from api.config import ROOT_CA_CONFIGMAP, SERVICE_ACCOUNT_MOUNT_PATH
from api.errors import admission_forbidden
from api.pod import own_spec

DEFAULT_NAME = "default"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
ENFORCE_MOUNTABLE = "kubernetes.io/enforce-mountable-secrets"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
TOKEN_MOUNT_PATH = SERVICE_ACCOUNT_MOUNT_PATH
TOKEN_EXPIRATION_SECONDS = 3607  # an hour and 7 s: the kubelet asks for it, the apiserver may extend it
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's rand.String: no vowels, no look-alikes
_SECRET_REF_VOLUMES = ("azureFile", "cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos")


def default_service_account(namespace: str) -> dict:
    """The `default` account the serviceaccount controller keeps in every active namespace."""
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": DEFAULT_NAME, "namespace": namespace}}


def is_mirror(pod: dict) -> bool:
    return MIRROR_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {})


def automount(pod: dict, sa: dict) -> bool:
    """The pod's automountServiceAccountToken wins, then the account's; true when neither says."""
    for source in ((pod.get("spec") or {}).get("automountServiceAccountToken"), sa.get("automountServiceAccountToken")):
        if source is not None:
            return bool(source)
    return True


def _containers(spec: dict) -> list[dict]:
    return (spec.get("initContainers") or []) + (spec.get("containers") or []) + \
        (spec.get("ephemeralContainers") or [])


def secret_names(pod: dict) -> Iterator[str]:
    """VisitPodSecretNames: pull secrets, env and envFrom references, secret and projected volumes, and
    the volume sources that carry a secretRef."""
    spec = pod.get("spec") or {}
    yield from (r.get("name", "") for r in spec.get("imagePullSecrets") or [])
    for c in _containers(spec):
        yield from (e["secretRef"].get("name", "") for e in c.get("envFrom") or [] if e.get("secretRef"))
        yield from (e["valueFrom"]["secretKeyRef"].get("name", "") for e in c.get("env") or []
                    if (e.get("valueFrom") or {}).get("secretKeyRef"))
    for v in spec.get("volumes") or []:
        yield from _volume_secrets(v)


def _volume_secrets(volume: dict) -> Iterator[str]:
    if volume.get("secret") is not None:
        yield volume["secret"].get("secretName", "")
    for source in (volume.get("projected") or {}).get("sources") or []:
        if source.get("secret") is not None:
            yield source["secret"].get("name", "")
    for kind in _SECRET_REF_VOLUMES:
        ref = (volume.get(kind) or {}).get("secretRef")
        if ref:
            yield ref.get("name", "")
    if (volume.get("azureFile") or {}).get("secretName"):
        yield volume["azureFile"]["secretName"]
    if (volume.get("csi") or {}).get("nodePublishSecretRef"):
        yield volume["csi"]["nodePublishSecretRef"].get("name", "")


def _uses_token_projection(pod: dict) -> bool:
    return any(s.get("serviceAccountToken") is not None for v in (pod.get("spec") or {}).get("volumes") or []
               for s in (v.get("projected") or {}).get("sources") or [])


def validate_mirror(pod: dict) -> None:
    """A mirror pod is the kubelet's copy of a static pod: it may reference no account and no secret."""
    if (pod.get("spec") or {}).get("serviceAccountName"):
        raise admission_forbidden("Pod", pod, "a mirror pod may not reference service accounts")
    if next(secret_names(pod), None) is not None:
        raise admission_forbidden("Pod", pod, "a mirror pod may not reference secrets")
    if _uses_token_projection(pod):
        raise admission_forbidden("Pod", pod, "a mirror pod may not use ServiceAccountToken volume projections")


def admit_pod(pod: dict, service_account: dict | None) -> dict:
    """A created pod with its account name set and the account's pull secrets copied in; Forbidden
    when the account does not exist, or when it enforces mountable secrets the pod goes beyond.
    The caller looks up `spec.serviceAccountName or "default"` in the pod's namespace."""
    if is_mirror(pod):
        validate_mirror(pod)
        return pod
    pod = own_spec(pod)
    spec = pod.setdefault("spec", {})
    name = spec["serviceAccountName"] = spec.get("serviceAccountName") or DEFAULT_NAME
    if service_account is None:
        namespace = (pod.get("metadata") or {}).get("namespace", "")
        raise admission_forbidden("Pod", pod, f'error looking up service account {namespace}/{name}: '
                                              f'serviceaccount "{name}" not found')
    if not spec.get("imagePullSecrets") and service_account.get("imagePullSecrets"):
        spec["imagePullSecrets"] = [{"name": r.get("name", "")} for r in service_account["imagePullSecrets"]]
    if _enforces_mountable(service_account):
        problem = mountable_secret_error(pod, service_account)
        if problem:
            raise admission_forbidden("Pod", pod, problem)
    if automount(pod, service_account):
        mount_token(spec)
    return pod


def token_volume(name: str) -> dict:
    """TokenVolumeSource: the token, the cluster's CA, the namespace, each file 0644."""
    return {"name": name, "projected": {"defaultMode": 0o644, "sources": [
        {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_EXPIRATION_SECONDS}},
        {"configMap": {"name": ROOT_CA_CONFIGMAP, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
                                                                       "fieldPath": "metadata.namespace"}}]}}]}}


def mount_token(spec: dict, rng: random.Random | None = None) -> None:
    """mountServiceAccountToken: reuse a kube-api-access-* volume the pod has, else name one; mount it in
    each init and app container without a mount at the path; add the volume if one was mounted."""
    volumes = spec.get("volumes") or []
    name = next((v["name"] for v in volumes if v.get("name", "").startswith(TOKEN_VOLUME_PREFIX)), None)
    existing = name is not None
    name = name or TOKEN_VOLUME_PREFIX + "".join((rng or random).choice(NAME_ALPHABET) for _ in range(5))
    mount = {"name": name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}
    needed = False
    for field in ("initContainers", "containers"):
        if not spec.get(field):
            continue
        spec[field] = [dict(c) for c in spec[field]]  # the pod's own containers: the caller's are shared
        for c in spec[field]:
            if not any(m.get("mountPath") == TOKEN_MOUNT_PATH for m in c.get("volumeMounts") or []):
                c["volumeMounts"] = [*(c.get("volumeMounts") or []), mount]
                needed = True
    if needed and not existing:
        spec["volumes"] = [*volumes, token_volume(name)]


def _enforces_mountable(sa: dict) -> bool:
    value = ((sa.get("metadata") or {}).get("annotations") or {}).get(ENFORCE_MOUNTABLE, "")
    return value.lower() in ("1", "t", "true")


def mountable_secret_error(pod: dict, sa: dict) -> str | None:
    """limitSecretReferences: with enforce-mountable-secrets, only the account's secrets may be used."""
    spec, account = pod.get("spec") or {}, sa["metadata"]["name"]
    mountable = {s.get("name") for s in sa.get("secrets") or []}
    for v in spec.get("volumes") or []:
        secret = (v.get("secret") or {}).get("secretName")
        if v.get("secret") is not None and secret not in mountable:
            return (f'volume with secret.secretName="{secret or ""}" is not allowed because service account '
                    f'{account} does not reference that secret')
    for where, containers in (("init container", spec.get("initContainers")), ("container", spec.get("containers"))):
        for c in containers or []:
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {}).get("secretKeyRef")
                if ref and ref.get("name") not in mountable:
                    return (f'{where} {c.get("name", "")} with envVar {e.get("name", "")} referencing '
                            f'secret.secretName="{ref.get("name", "")}" is not allowed because service account '
                            f'{account} does not reference that secret')
    pull = {s.get("name") for s in sa.get("imagePullSecrets") or []}
    for i, ref in enumerate(spec.get("imagePullSecrets") or []):
        if ref.get("name") not in pull:
            return (f'imagePullSecrets[{i}].name="{ref.get("name", "")}" is not allowed because service account '
                    f'{account} does not reference that imagePullSecret')
    return None


# ---- the plugin in the apiserver's chain ----------------------------------------------------------

class ServiceAccount:
    name = "ServiceAccount"

    def mutate(self, a) -> None:
        if not a.pod_create:
            return
        wanted = (a.obj.get("spec") or {}).get("serviceAccountName") or DEFAULT_NAME
        account = a.cache.get("ServiceAccount", a.namespace, wanted)
        if account is None and wanted == DEFAULT_NAME:
            account = default_service_account(a.namespace)
        a.obj = admit_pod(a.obj, account)
