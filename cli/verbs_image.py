"""`kubus image`: the local registry's images — build kubus's own from the OS's packages, import docker
and OCI archives, list what is there, and start the registry itself."""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse

import click

from api.printers import columns as printers
from config.settings import Settings
from runtime import logs as logging_setup
from runtime.images import archives, recipes, registry

START_HINT = "start it with `make images` or `kubus image registry`"


def _registry_option(command):
    return click.option("--registry", "url", default=None, metavar="URL",
                        help="The registry's address (default: KUBUS_REGISTRY_URL, http://127.0.0.1:5000).")(command)


@click.group("image")
def image() -> None:
    """Images in the local registry: build kubus's own, import archives, list them."""


@contextmanager
def _client(url: str | None) -> Iterator[registry.Client]:
    """A client of a registry that answers; what goes wrong is a sentence, never a traceback."""
    logging_setup.configure("warning")
    client = registry.Client(url or Settings().registry_url)
    try:
        if not client.answering():
            raise registry.RegistryUnavailable(f"the image registry at {client.url} does not answer")
        yield client
    except registry.RegistryUnavailable as exc:
        raise click.ClickException(f"{exc}: {START_HINT}") from None
    except (registry.RegistryError, archives.BadArchive, recipes.MissingPackage) as exc:
        raise click.ClickException(str(exc)) from None


@image.command("build")
@_registry_option
def build(url: str | None) -> None:
    """Build busybox, the pause image and python from the OS's packages and push them.

    Each is tagged by the version of the package it is built from; blobs the registry has are skipped."""
    with _client(url) as client:
        digests = recipes.build_and_push(client, click.echo)
    click.echo(f"{len(digests)} image tags in {client.url}")


@image.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE")
@click.option("--name", default=None, metavar="REF", help="Store the image under this name (e.g. myapp:1.0).")
@_registry_option
def import_(path: Path, name: str | None, url: str | None) -> None:
    """Push the images of a `docker save` or OCI layout tar under the names it gives (or --name)."""
    with _client(url) as client:
        archives.import_archive(client, path, name, click.echo)


@image.command("list")
@_registry_option
def list_(url: str | None) -> None:
    """The registry's images: one row per tag."""
    with _client(url) as client:
        rows = [[repo, tag, *_digest_and_size(client, repo, tag)]
                for repo in client.repositories() for tag in client.tags(repo)]
    if not rows:
        click.echo("No images found.", err=True)
        return
    click.echo(printers.table([["IMAGE", "TAG", "DIGEST", "SIZE"], *rows]))


def _digest_and_size(client: registry.Client, repository: str, tag: str) -> list[str]:
    manifest = client.manifest(repository, tag)
    body = json.loads(manifest.data)
    parts = [body.get("config") or {}, *(body.get("layers") or body.get("manifests") or [])]
    return [manifest.digest, _human(sum(part.get("size", 0) for part in parts))]


def _human(size: int) -> str:
    """crictl's sizes: 1000-based, three significant digits (`1.04MB`, `314kB`)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.3g}{unit}"
    return f"{size}B"


@image.command("registry")
@click.option("--stop", is_flag=True, help="Stop the registry this command started.")
@_registry_option
def serve(stop: bool, url: str | None) -> None:
    """Start the local registry (the OS's docker-registry) in the background, unless one answers.

    Its storage, configuration, pid and log live in KUBUS_REGISTRY_DIR (default <data dir>/registry)."""
    logging_setup.configure("warning")
    settings = Settings()
    url = (url or settings.registry_url).rstrip("/")
    if stop:
        stopped = registry.stop_detached(settings.registry_root)
        click.echo(f"stopped the registry at {url}" if stopped else "no registry of kubus's is running")
        return
    if registry.answering(url):
        click.echo(f"a registry answers at {url}")
        return
    address = urlparse(url).netloc
    try:
        server = registry.serve(settings.registry_root, address, detached=True)
    except registry.RegistryUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"registry started at {server.url} (pid {server.pid}, data in {settings.registry_root})")
