"""kubectl's everyday verbs that write: `create`, `run`, `set image` (`patch` and `wait` are in
`verbs_patch` and `verbs_wait`, `events` and `api-resources` in `verbs_tables`). Objects are built as kubectl's
generators build them and named in its output form: `deployment.apps/web created`."""
from __future__ import annotations

import secrets
import sys
from typing import Callable

import click

from api.registry import KindInfo, lookup
from api.status import StatusError
from cli import manifests
from cli.session import connected
from cli.verbs_patch import object_name, read_modify_write, targets
from runtime.client import Client

_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's util/rand, as kubectl's names use


def random_suffix() -> str:
    return "".join(secrets.choice(_SUFFIX_ALPHABET) for _ in range(5))


def container_name(image: str, suffix: Callable[[], str] = random_suffix) -> str:
    """kubectl create deployment's container name: the image's last path segment without tag or
    digest; `_` and `.` become `-` and earn a random suffix."""
    name = image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]
    if "_" in name or "." in name:
        name = f"{name.replace('_', '-').replace('.', '-')}-{suffix()}"
    return name


def deployment_manifest(name: str, images: tuple[str, ...], replicas: int, command: tuple[str, ...] = (),
                        suffix: Callable[[], str] = random_suffix) -> dict:
    """What `kubectl create deployment` sends: labels, selector and template labels `app: NAME`."""
    labels = {"app": name}
    containers = [{"name": container_name(image, suffix), "image": image} for image in images]
    if command:
        containers[0]["command"] = list(command)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": labels},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)}, "spec": {"containers": containers}}}}


def pod_manifest(name: str, image: str, restart: str, labels: dict[str, str], env: dict[str, str],
                 args: tuple[str, ...] = (), as_command: bool = False) -> dict:
    """What `kubectl run` sends: label `run: NAME` unless --labels, args (or with --command the
    command) after `--`, dnsPolicy ClusterFirst."""
    container: dict = {"name": name, "image": image}
    if args:
        container["command" if as_command else "args"] = list(args)
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {"run": name}},
            "spec": {"containers": [container], "dnsPolicy": "ClusterFirst", "restartPolicy": restart}}


def key_values(items: list[str], what: str) -> dict[str, str]:
    """`k=v` items (kubectl's --labels a=b,c=d and --env K=V); anything else is a usage error."""
    pairs = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not key or not eq:
            raise click.BadParameter(f"invalid {what} spec: {item}")
        pairs[key] = value
    return pairs


def create_one(obj: dict, namespace: str | None) -> None:
    info = lookup(obj["kind"])
    with connected() as client:
        created = client.create(obj, namespace=(namespace or "default") if info.namespaced else None)
    click.echo(f"{object_name(info, created['metadata']['name'])} created")


@click.group("create", invoke_without_command=True)
@click.option("-f", "--filename", "paths", multiple=True, help="File, directory or - for stdin.")
@click.option("-n", "--namespace", default=None)
@click.pass_context
def create(ctx: click.Context, paths: tuple[str, ...], namespace: str | None) -> None:
    """Create objects from manifests (-f; what exists is an error), or a namespace or deployment."""
    if ctx.invoked_subcommand:
        return
    if not paths:
        raise click.UsageError("create needs -f FILE, or a kind: namespace, deployment, configmap, secret")
    with connected() as client:
        failed = [doc for path in paths for doc in manifests.read(path) if not _create_doc(client, doc, namespace)]
    if failed:
        sys.exit(1)


def manifest_namespace(info: KindInfo, obj: dict, namespace: str | None) -> str | None:
    """The namespace to create in; a manifest's own that -n contradicts is refused, as kubectl does."""
    if not info.namespaced:
        return None
    own = (obj.get("metadata") or {}).get("namespace")
    if own and namespace and own != namespace:
        raise click.ClickException(f'the namespace from the provided object "{own}" does not match the namespace '
                                   f'"{namespace}". You must pass \'--namespace={own}\' to perform this operation.')
    return own or namespace or "default"


def _create_doc(client: Client, doc: manifests.Document, namespace: str | None) -> bool:
    if doc.error or doc.obj is None:
        click.echo(f"error: {doc.error or doc.source + ': not an object'}", err=True)
        return False
    try:
        info = lookup(doc.obj.get("kind") or "")
        created = client.create(doc.obj, namespace=manifest_namespace(info, doc.obj, namespace))
    except StatusError as exc:
        source = doc.source.rsplit("#", 1)[0]
        click.echo(f'Error from server ({exc.reason}): error when creating "{source}": {exc.message}', err=True)
        return False
    click.echo(f"{object_name(info, created['metadata']['name'])} created")
    return True


@create.command("namespace")
@click.argument("name")
def create_namespace(name: str) -> None:
    """Create a namespace: `kubus create namespace shop`."""
    create_one({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}, None)


@create.command("deployment")
@click.argument("name")
@click.argument("command", nargs=-1)
@click.option("--image", "images", multiple=True, required=True, help="Image of a container (repeatable).")
@click.option("-r", "--replicas", type=int, default=1)
@click.option("-n", "--namespace", default=None)
def create_deployment(name: str, command: tuple[str, ...], images: tuple[str, ...], replicas: int,
                      namespace: str | None) -> None:
    """Create a Deployment: `kubus create deployment web --image=nginx:1.25 --replicas=3 [-- COMMAND]`."""
    if command and len(images) > 1:
        raise click.UsageError("cannot specify multiple --image options and command")
    create_one(deployment_manifest(name, images, replicas, command), namespace)


create.add_command(create_namespace, "ns")
create.add_command(create_deployment, "deploy")


@click.command("run")
@click.argument("name")
@click.argument("args", nargs=-1)
@click.option("--image", required=True)
@click.option("--restart", type=click.Choice(["Always", "OnFailure", "Never"]), default="Always")
@click.option("-l", "--labels", default="", help="Labels instead of run=NAME: a=b,c=d")
@click.option("--env", multiple=True, help="An environment variable K=V (repeatable).")
@click.option("--command", "as_command", is_flag=True, help="What follows -- is the command, not its args.")
@click.option("-n", "--namespace", default=None)
def run(name: str, args: tuple[str, ...], image: str, restart: str, labels: str, env: tuple[str, ...],
        as_command: bool, namespace: str | None) -> None:
    """Create a pod of one container: `kubus run web --image=busybox --restart=Never -- sleep 60`."""
    pod = pod_manifest(name, image, restart, key_values([x for x in labels.split(",") if x], "label"),
                       key_values(list(env), "env"), args, as_command)
    create_one(pod, namespace)


def pod_spec(obj: dict) -> dict | None:
    """The pod spec a workload carries (a pod's own), or None for a kind without one."""
    if obj["kind"] == "Pod":
        return obj["spec"]
    if obj["kind"] in ("Deployment", "ReplicaSet"):
        return obj["spec"]["template"]["spec"]
    return None


def set_images(spec: dict, images: dict[str, str]) -> list[str]:
    """Give each named container (and init container; `*` for all) its image; the names not found."""
    missing = []
    for name, image in images.items():
        found = [c for c in (spec.get("initContainers") or []) + spec["containers"] if name in ("*", c["name"])]
        for container in found:
            container["image"] = image
        if not found:
            missing.append(name)
    return missing


@click.group("set")
def set_group() -> None:
    """Change a field of existing objects."""


@set_group.command("image")
@click.argument("args", nargs=-1, required=True, metavar="KIND/NAME... CONTAINER=IMAGE...")
@click.option("-n", "--namespace", default=None)
def set_image(args: tuple[str, ...], namespace: str | None) -> None:
    """Set containers' images: `kubus set image deployment/web web=nginx:1.26` (`*=IMAGE` for all)."""
    images = key_values([a for a in args if "=" in a], "image")
    if not images:
        raise click.UsageError("at least one image update is required: CONTAINER=IMAGE")
    missing: list[str] = []
    with connected() as client:
        for info, name in targets(tuple(a for a in args if "=" not in a)):
            changed, lacking = set_image_of(client, info, name, (namespace or "default") if info.namespaced else None,
                                            images)
            missing += lacking
            if changed:
                click.echo(f"{object_name(info, name)} image updated")
    for name in missing:
        click.echo(f'error: unable to find container named "{name}"', err=True)
    if missing:
        sys.exit(1)


def set_image_of(client: Client, info: KindInfo, name: str, ns: str | None,
                 images: dict[str, str]) -> tuple[bool, list[str]]:
    """Whether the object changed, and the container names it lacks."""
    lacking: list[str] = []

    def change(obj: dict) -> dict:
        spec = pod_spec(obj)
        if spec is None:
            raise click.ClickException(f"{object_name(info, name)}: a {info.kind} has no containers to set")
        lacking[:] = set_images(spec, images)
        return obj

    return read_modify_write(client, info, name, ns, change)[1], lacking
