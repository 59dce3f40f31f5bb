"""Where a webhook is called (Kubernetes' `util/webhook/client.go` over the endpoint service resolver):
`clientConfig.url` as given; `clientConfig.service` as `https://<name>.<namespace>.svc:<port><path>`,
dialled at one of the Service's ready endpoints (its EndpointSlices in the apiserver's cache) and
verified against the caBundle under the name `<name>.<namespace>.svc`, as kube-apiserver does with
`--enable-aggregator-routing`. Runs on the actor's thread: the cache is read there, the call is not."""
from __future__ import annotations

import random
from dataclasses import dataclass

from actors.apiserver.admission.webhook.client import CallFailed
from api.discovery import usable

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
DEFAULT_PORT = 443


@dataclass(frozen=True)
class Target:
    url: str  # as the error messages show it; its host is the name the server's certificate must hold
    dial: tuple[str, int] | None = None  # where to connect instead of the URL's host (a pod's address)


def target(config: dict, cache) -> Target:
    """The call's target; CallFailed (`could not get REST client: ...`) when the Service has none."""
    if config.get("url"):
        return Target(config["url"])
    ref = config.get("service") or {}
    name, namespace = ref.get("name") or "", ref.get("namespace") or ""
    port = ref.get("port") or DEFAULT_PORT
    url = f"https://{name}.{namespace}.svc:{port}{ref.get('path') or ''}"
    try:
        return Target(url, _endpoint(cache, namespace, name, port))
    except LookupError as exc:
        raise CallFailed(f"could not get REST client: {exc}") from None


def _endpoint(cache, namespace: str, name: str, port: int) -> tuple[str, int]:
    service = cache.get("Service", namespace, name)
    if service is None:
        raise LookupError(f'services "{name}" not found')
    spec = service.get("spec") or {}
    chosen = next((p for p in spec.get("ports") or [] if p.get("port") == port), None)
    if chosen is None:
        raise LookupError(f'no service port {port} found for service "{name}"')
    slices = [s for s in cache.list("EndpointSlice", namespace)
              if ((s.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME_LABEL) == name]
    ready = usable(slices, chosen.get("name") or "", chosen.get("protocol") or "TCP")
    if not ready:
        raise LookupError(f'no endpoints available for service "{name}"')
    return random.choice(ready)
