"""`kubus create configmap|secret …`, built as kubectl's generators build them (`kubectl create
configmap`, `create secret generic|tls|docker-registry`): --from-literal, --from-file (a file, `key=path`
or a directory's files) and --from-env-file, keys checked with the API's rule before anything is sent."""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import click

from api.config import encode_bytes
from api.config_validation import key_errors
from cli.verbs import create_one, create

DOCKER_HUB = "https://index.docker.io/v1/"


class Sources:
    """The keys of one ConfigMap or Secret as they are added, refusing a repeated or invalid key."""

    def __init__(self, kind: str, name: str):
        self.kind, self.name = kind, name
        self.text: dict[str, str] = {}
        self.binary: dict[str, bytes] = {}

    def add(self, key: str, value: bytes) -> None:
        errors = key_errors(key)
        if errors:
            raise click.ClickException(f'"{key}" is not a valid key name for a {self.kind}: {"; ".join(errors)}')
        if key in self.text or key in self.binary:
            raise click.ClickException(f'cannot add key "{key}", another key by that name already exists in Data '
                                       f'for {self.kind} "{self.name}"')
        try:
            self.text[key] = value.decode("utf-8")
        except UnicodeDecodeError:
            self.binary[key] = value

    def literals(self, items: tuple[str, ...]) -> "Sources":
        for item in items:
            key, eq, value = item.partition("=")
            if not key or not eq:
                raise click.ClickException(f"invalid literal source {item}, expected key=value")
            self.add(key, value.encode())
        return self

    def files(self, items: tuple[str, ...]) -> "Sources":
        for item in items:
            key, eq, path = item.partition("=") if "=" in item else ("", "", item)
            source = Path(path)
            if source.is_dir() and not eq:
                for one in sorted(p for p in source.iterdir() if p.is_file() and not key_errors(p.name)):
                    self.add(one.name, one.read_bytes())
            elif source.is_dir():
                raise click.ClickException(f"cannot give a key name for a directory path: {path}")
            else:
                self.add(key or source.name, _read(source))
        return self

    def env_files(self, items: tuple[str, ...]) -> "Sources":
        for path in items:
            for number, line in enumerate(_read(Path(path)).decode().splitlines(), 1):
                line = line.lstrip()
                if not line or line.startswith("#"):
                    continue
                key, eq, value = line.partition("=")
                if not eq:
                    value = os.environ.get(key, "")
                if not key or " " in key:
                    raise click.ClickException(f'"{key}" is not a valid key name (line {number} of {path})')
                self.add(key, value.encode())
        return self

    def secret_data(self) -> dict[str, str]:
        return {**{k: encode_bytes(v.encode()) for k, v in self.text.items()},
                **{k: encode_bytes(v) for k, v in self.binary.items()}}


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise click.ClickException(f"error reading {path}: {exc.strerror or exc}") from None


def sources(kind: str, name: str, literals=(), files=(), env_files=()) -> Sources:
    if env_files and (literals or files):
        raise click.UsageError("from-env-file cannot be combined with from-file or from-literal")
    return Sources(kind, name).literals(literals).files(files).env_files(env_files)


def configmap_manifest(name: str, literals=(), files=(), env_files=()) -> dict:
    keys = sources("ConfigMap", name, literals, files, env_files)
    obj: dict = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": keys.text}
    if keys.binary:
        obj["binaryData"] = {k: encode_bytes(v) for k, v in keys.binary.items()}
    return obj


def secret_manifest(name: str, type_: str, data: dict[str, str]) -> dict:
    obj = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": data}
    return {**obj, "type": type_} if type_ else obj


def docker_config(server: str, username: str, password: str, email: str) -> bytes:
    """The `.dockerconfigjson` kubectl writes: one registry with user, password, email and `auth`."""
    entry = {"username": username, "password": password, **({"email": email} if email else {}),
             "auth": base64.b64encode(f"{username}:{password}".encode()).decode()}
    return json.dumps({"auths": {server: entry}}, separators=(",", ":")).encode()


SOURCES = (click.option("--from-literal", "literals", multiple=True, help="key=value (repeatable)."),
           click.option("--from-file", "files", multiple=True, help="[key=]path: a file, or a directory's files."),
           click.option("--from-env-file", "env_files", multiple=True, help="KEY=VALUE lines."),
           click.option("-n", "--namespace", default=None))


def _with_sources(command):
    for option in reversed(SOURCES):
        command = option(command)
    return command


@create.command("configmap")
@click.argument("name")
@_with_sources
def create_configmap(name: str, literals, files, env_files, namespace) -> None:
    """Create a ConfigMap: `kubus create configmap app --from-literal=mode=fast --from-file=app.conf`."""
    create_one(configmap_manifest(name, literals, files, env_files), namespace)


@create.group("secret")
def create_secret() -> None:
    """Create a Secret: generic, tls or docker-registry."""


@create_secret.command("generic")
@click.argument("name")
@click.option("--type", "type_", default="", help="The Secret's type (Opaque when empty).")
@_with_sources
def create_secret_generic(name: str, type_: str, literals, files, env_files, namespace) -> None:
    """`kubus create secret generic db --from-literal=password=…`."""
    keys = sources("Secret", name, literals, files, env_files)
    create_one(secret_manifest(name, type_, keys.secret_data()), namespace)


@create_secret.command("tls")
@click.argument("name")
@click.option("--cert", required=True, type=click.Path(dir_okay=False), help="PEM certificate file.")
@click.option("--key", required=True, type=click.Path(dir_okay=False), help="PEM private key file.")
@click.option("-n", "--namespace", default=None)
def create_secret_tls(name: str, cert: str, key: str, namespace) -> None:
    """`kubus create secret tls web --cert=tls.crt --key=tls.key` (type kubernetes.io/tls)."""
    data = {"tls.crt": encode_bytes(_read(Path(cert))), "tls.key": encode_bytes(_read(Path(key)))}
    create_one(secret_manifest(name, "kubernetes.io/tls", data), namespace)


@create_secret.command("docker-registry")
@click.argument("name")
@click.option("--docker-server", default=DOCKER_HUB)
@click.option("--docker-username", default="")
@click.option("--docker-password", default="")
@click.option("--docker-email", default="")
@click.option("--from-file", "files", multiple=True, help="[key=]path of a .dockerconfigjson.")
@click.option("-n", "--namespace", default=None)
def create_secret_docker_registry(name: str, docker_server: str, docker_username: str, docker_password: str,
                                  docker_email: str, files, namespace) -> None:
    """`kubus create secret docker-registry reg --docker-server=… --docker-username=… --docker-password=…`."""
    if files:
        data = Sources("Secret", name).files(files).secret_data()
    elif docker_username and docker_password:
        data = {".dockerconfigjson": encode_bytes(docker_config(docker_server, docker_username, docker_password,
                                                                docker_email))}
    else:
        raise click.UsageError("either --from-file or the combination of --docker-username, --docker-password and "
                               "--docker-server is required")
    create_one(secret_manifest(name, "kubernetes.io/dockerconfigjson", data), namespace)


create.add_command(create_configmap, "cm")
