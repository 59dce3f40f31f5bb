"""`kubus up`'s preparation for nodes whose runtime is `cri`: containerd must be able to run here, and
the local registry must answer with kubus's images in it (started in the background and filled when it
does not: a few seconds, nothing uploaded twice; busybox and pause before the cluster starts, python
and nginx beside it). Where containerd cannot run, `up` says why and stops,
unless KUBUS_NODE_RUNTIME names another runtime for every node (`make demo` falls back to `process`)."""
from __future__ import annotations

import threading
from urllib.parse import urlparse

import click

from actors.kubelet.cri import containerd
from config.cluster import ClusterFile
from config.settings import Settings
from runtime.images import recipes, registry


def prepare(spec: ClusterFile, settings: Settings) -> None:
    cri = [n.name for n in spec.nodes if n.runtime == "cri"]
    if not cri or settings.cri_endpoint:
        return
    why = containerd.available()
    if why:
        raise click.ClickException(f"nodes {', '.join(cri)} run containers with containerd, which cannot run here: "
                                   f"{why}. Run `make containers` as root, or KUBUS_NODE_RUNTIME=process kubus up "
                                   f"(host processes, for your own machine only)")
    url = settings.registry_url.rstrip("/")
    if not registry.answering(url):
        server = registry.serve(settings.registry_root, urlparse(url).netloc, detached=True)
        click.echo(f"started the image registry at {server.url} (pid {server.pid})", err=True)
    recipes.build_and_push(registry.Client(url), _progress, only=recipes.ESSENTIAL.__contains__)
    threading.Thread(target=_push_the_rest, args=(url,), name="images", daemon=True).start()


def _progress(line: str) -> None:
    click.echo(f"images: {line}", err=True)


def _push_the_rest(url: str) -> None:
    """python and nginx, while the cluster starts (a few seconds no pod of the demo waits for)."""
    try:
        recipes.build_and_push(registry.Client(url), _progress, only=lambda repo: repo not in recipes.ESSENTIAL)
    except (registry.RegistryError, recipes.MissingPackage, OSError) as exc:
        _progress(f"not pushed: {exc}")
