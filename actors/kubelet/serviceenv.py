"""Service environment variables (`pkg/kubelet/envvars`): every Service with a ClusterIP in the pod's
namespace when `enableServiceLinks` (the default), as `{NAME}_SERVICE_HOST`, `{NAME}_PORT_80_TCP…`, and
always the master service, `default/kubernetes` (KUBERNETES_SERVICE_HOST/PORT: how in-cluster clients
find the API). A snapshot taken when a container starts; the container's own `env` wins over them."""
from __future__ import annotations

from api.service import HEADLESS


def _munged(name: str) -> str:
    upper = name.upper().replace("-", "_").replace(".", "_")
    return f"_{upper}" if upper[:1].isdigit() else upper


MASTER_NAMESPACE, MASTER_SERVICES = "default", ("kubernetes",)


def linked(services, namespace: str, enable_links: bool) -> list[dict]:
    """getServiceEnvVarMap's choice: the master services of `default`, even without service links, and
    the namespace's own when linked (one of the same name in the pod's namespace wins)."""
    chosen = {s["metadata"]["name"]: s for s in services(MASTER_NAMESPACE) if s["metadata"]["name"] in MASTER_SERVICES}
    if enable_links:
        chosen.update({s["metadata"]["name"]: s for s in services(namespace)})
    return list(chosen.values())


def service_env(services: list[dict]) -> dict[str, str]:
    env: dict[str, str] = {}
    for svc in sorted(services, key=lambda s: s["metadata"]["name"]):
        spec = svc.get("spec") or {}
        ip, ports = spec.get("clusterIP"), spec.get("ports") or []
        if not ip or ip == HEADLESS or not ports:
            continue
        env.update(_one(_munged(svc["metadata"]["name"]), ip, ports))
    return env


def _one(name: str, ip: str, ports: list[dict]) -> dict[str, str]:
    first = ports[0]
    env = {f"{name}_SERVICE_HOST": ip, f"{name}_SERVICE_PORT": str(first["port"]),
           f"{name}_PORT": f"{first.get('protocol', 'TCP').lower()}://{ip}:{first['port']}"}
    for port in ports:
        proto = port.get("protocol", "TCP")
        if port.get("name"):
            env[f"{name}_SERVICE_PORT_{_munged(port['name'])}"] = str(port["port"])
        prefix = f"{name}_PORT_{port['port']}_{proto.upper()}"
        env.update({prefix: f"{proto.lower()}://{ip}:{port['port']}", f"{prefix}_PROTO": proto.lower(),
                    f"{prefix}_PORT": str(port["port"]), f"{prefix}_ADDR": ip})
    return env
