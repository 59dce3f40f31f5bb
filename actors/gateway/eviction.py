"""A pod's `eviction` subresource (policy/v1 Eviction, what `kubectl drain` posts when discovery
lists `pods/eviction`). kubus has no PodDisruptionBudgets, so no budget can refuse an eviction
(Kubernetes' 429): it is the pod's graceful delete with the Eviction's deleteOptions, authorized
as `delete pods` rather than Kubernetes' `create pods/eviction`. Answered 201 with a Status."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.bodies import read_body
from actors.gateway.calls import call
from actors.gateway.paths import Target
from actors.gateway.responses import object_response
from api import scope
from api.status import bad_request
from runtime.client import Client

DELETE_OPTIONS = ("gracePeriodSeconds", "preconditions", "propagationPolicy", "dryRun")


async def evict(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    body = await read_body(request, max_bytes)
    if not isinstance(body, dict) or body.get("kind") not in (None, "Eviction"):
        raise bad_request("the body of an eviction must be a policy/v1 Eviction")
    scope.names_the_pod("Eviction", target.namespace, target.name, body)
    given = body.get("deleteOptions") or {}
    options = {key: given[key] for key in DELETE_OPTIONS if given.get(key) is not None}
    await call(client, "delete", "Pod", namespace=target.namespace, name=target.name, options=options)
    created = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    return object_response(request, created, status=201)
