"""The Widget operator the proof runs in a pod (kopf 1.38, as its ServiceAccount): each Widget becomes
a ConfigMap `<name>-widget` holding its size and replicas, owned by the Widget; the Widget's status says
which ConfigMap and how many replicas (kopf writes it through the status subresource); the delete
handler, so kopf's finalizer, removes the ConfigMap before the Widget goes. The ConfigMaps are written
with aiohttp over the pod's token, as the in-cluster files give it."""
import os
import ssl

import aiohttp
import kopf

ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
BASE = f"https://{os.environ.get('KUBERNETES_SERVICE_HOST')}:{os.environ.get('KUBERNETES_SERVICE_PORT')}"


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.persistence.finalizer = "example.com/widget-operator"
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix="example.com")
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(prefix="example.com")
    settings.posting.enabled = False


async def _call(method: str, path: str, body: dict | None = None, content_type: str = "application/json"):
    token = open(f"{ACCOUNT}/token").read()
    context = ssl.create_default_context(cafile=f"{ACCOUNT}/ca.crt")
    headers = {"Authorization": f"Bearer {token}", "Content-Type": content_type}
    async with aiohttp.ClientSession() as session:
        async with session.request(method, BASE + path, json=body, headers=headers, ssl=context) as answer:
            return answer.status, await answer.json()


@kopf.on.create("example.com", "v1", "widgets")
@kopf.on.update("example.com", "v1", "widgets")
@kopf.on.resume("example.com", "v1", "widgets")
async def reconcile(name, namespace, spec, body, patch, logger, **_):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-widget"},
          "data": {"size": spec.get("size", ""), "replicas": str(spec.get("replicas", 1))}}
    kopf.adopt(cm, owner=body)
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    code, answer = await _call("POST", path, cm)
    if code == 409:
        code, answer = await _call("PATCH", f"{path}/{name}-widget", {"data": cm["data"]},
                                   "application/merge-patch+json")
    if code >= 300:
        raise kopf.TemporaryError(f"configmap {name}-widget: {code} {answer.get('message')}", delay=1)
    patch.status["configMap"] = f"{name}-widget"
    patch.status["ready"] = int(spec.get("replicas", 1))
    logger.info(f"reconciled {namespace}/{name} into {name}-widget")


@kopf.on.delete("example.com", "v1", "widgets")
async def remove(name, namespace, logger, **_):
    code, answer = await _call("DELETE", f"/api/v1/namespaces/{namespace}/configmaps/{name}-widget")
    if code >= 300 and code != 404:
        raise kopf.TemporaryError(f"configmap {name}-widget: {code} {answer.get('message')}", delay=1)
    logger.info(f"removed {namespace}/{name}-widget")
