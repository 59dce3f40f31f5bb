"""`/apis/metrics.k8s.io/v1beta1`: NodeMetrics at `nodes[/<n>]`, PodMetrics at `[namespaces/<ns>/]pods[/<p>]`
(get, list with label and field selectors), as metrics-server serves them behind its APIService; asked
through the bus as the caller (the apiserver authorizes `get/list nodes|pods.metrics.k8s.io` and hands the
read to the metrics actor)."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.calls import call
from actors.gateway.responses import json_response, not_found_path
from api import metrics
from api.status import StatusError
from runtime.client import Client

VERBS = ["get", "list"]


def resource_list() -> dict:
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": metrics.API_VERSION,
            "resources": [{"name": resource, "singularName": "", "namespaced": namespaced, "kind": kind,
                           "verbs": list(VERBS)} for kind, (resource, namespaced) in metrics.KINDS.items()]}


async def serve(request: web.Request, client: Client, rest: list[str]) -> web.Response:
    if not rest:
        return json_response(resource_list())
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    kind = metrics.BY_RESOURCE.get(rest[0]) if 1 <= len(rest) <= 2 else None
    if kind is None or (namespace and not metrics.KINDS[kind][1]):
        raise not_found_path(request.path)
    if request.method != "GET":
        raise StatusError("MethodNotAllowed", "the server does not allow this method on the requested resource")
    if len(rest) == 2:
        return json_response((await call(client, "get", kind, namespace=namespace, name=rest[1]))["object"])
    options = {k: request.query[k] for k in ("labelSelector", "fieldSelector") if request.query.get(k)}
    reply = await call(client, "list", kind, namespace=namespace, options=options)
    return json_response({"kind": f"{kind}List", "apiVersion": metrics.API_VERSION, "metadata": {},
                          "items": reply["items"]})
