"""A pod's `eviction` subresource (policy/v1 Eviction, what `kubectl drain` posts when discovery
lists `pods/eviction`), handed to the apiserver as the `evict` verb: it is authorized there as
`create pods/eviction`, checked against the pod's PodDisruptionBudget (429 while the budget allows
no disruption, which kubectl drain retries) and then the pod's graceful delete with the Eviction's
deleteOptions. Answered 201 with a Status."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.bodies import read_body
from actors.gateway.calls import call
from actors.gateway.paths import Target
from actors.gateway.responses import object_response
from api.status import bad_request
from runtime.client import Client

DELETE_OPTIONS = ("gracePeriodSeconds", "preconditions", "propagationPolicy", "dryRun")


async def evict(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    body = await read_body(request, max_bytes)
    if not isinstance(body, dict) or body.get("kind") not in (None, "Eviction"):
        raise bad_request("the body of an eviction must be a policy/v1 Eviction")
    given = body.get("deleteOptions") or {}
    options = {key: given[key] for key in DELETE_OPTIONS if given.get(key) is not None}
    eviction = {"metadata": body.get("metadata") or {}}
    reply = await call(client, "evict", "Pod", namespace=target.namespace, name=target.name, obj=eviction,
                       options=options)
    return object_response(request, reply["object"], status=201)
