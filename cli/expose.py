"""`kubus expose`: a Service for a Deployment, ReplicaSet, Pod or Service, selecting what it selects
(kubectl expose)."""
from __future__ import annotations

import click

from api.registry import lookup
from cli.session import connected
from cli.verbs_patch import object_name


def selector_of(obj: dict) -> dict[str, str]:
    """The labels a Service should select: a workload's matchLabels, a pod's labels, a Service's selector."""
    kind, spec = obj["kind"], obj.get("spec") or {}
    if kind == "Pod":
        found = obj["metadata"].get("labels") or {}
    elif kind == "Service":
        found = spec.get("selector") or {}
    else:
        selector = spec.get("selector") or {}
        if selector.get("matchExpressions"):
            raise click.ClickException(f"couldn't convert expressions - \"{selector['matchExpressions']}\" to map: "
                                       f"cannot expose a selector with expressions")
        found = selector.get("matchLabels") or {}
    if not found:
        raise click.ClickException(f"couldn't find selectors via --selector flag or introspection: {kind} "
                                   f"{obj['metadata']['name']} has none")
    return found


def service_for(obj: dict, name: str, port: int, target: str | None, protocol: str, kind: str) -> dict:
    target_port: int | str = int(target) if target and target.isdigit() else (target or port)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "labels": dict(obj["metadata"].get("labels") or {})},
            "spec": {"type": kind, "selector": selector_of(obj),
                     "ports": [{"port": port, "protocol": protocol, "targetPort": target_port}]}}


@click.command("expose")
@click.argument("kind")
@click.argument("name", required=False)
@click.option("--port", type=int, required=True, help="The port the Service serves on.")
@click.option("--target-port", default=None, help="The port (number or name) on the pods; default: --port.")
@click.option("--name", "service_name", default=None, help="The Service's name (default: the object's).")
@click.option("--type", "service_type", default="ClusterIP",
              type=click.Choice(["ClusterIP", "NodePort", "LoadBalancer"]))
@click.option("--protocol", default="TCP", type=click.Choice(["TCP", "UDP", "SCTP"]))
@click.option("-n", "--namespace", default=None)
def expose(kind: str, name: str | None, port: int, target_port: str | None, service_name: str | None,
           service_type: str, protocol: str, namespace: str | None) -> None:
    """Expose a workload as a Service: `kubus expose deployment web --port 80 --target-port 8080`."""
    if name is None and "/" in kind:
        kind, name = kind.split("/", 1)
    if not name:
        raise click.UsageError("expose needs KIND NAME or KIND/NAME")
    info = lookup(kind)
    ns = namespace or "default"
    with connected() as client:
        obj = client.get(info.kind, name, ns)
        created = client.create(service_for(obj, service_name or name, port, target_port, protocol, service_type),
                                namespace=ns)
    click.echo(f"{object_name(lookup('Service'), created['metadata']['name'])} exposed")
