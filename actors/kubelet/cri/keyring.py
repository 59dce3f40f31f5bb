"""The credentials a pod's image pull may use, as the kubelet's credentialprovider keyring finds them
(pkg/credentialprovider/keyring.go, config.go, secrets/secrets.go): the pod's `imagePullSecrets` of
type `kubernetes.io/dockerconfigjson` (`.dockerconfigjson`: `{"auths": {server: entry}}`) or
`kubernetes.io/dockercfg` (`.dockercfg`: `{server: entry}`), each entry's `auth` (base64 of
`user:password`) over its `username` and `password`. A server is matched against the image's
repository as `URLsMatch` does: the same port, as many host parts, each matched as a glob
(`*.example.com`), the server's path a prefix of the repository's; every match is tried, the longest
key first (the keys sorted in reverse), and docker.io images also take `index.docker.io`'s.
A ServiceAccount's `imagePullSecrets` reach the pod at admission (the ServiceAccount plugin)."""
from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

DOCKER_CONFIG_JSON, DOCKER_CFG = "kubernetes.io/dockerconfigjson", "kubernetes.io/dockercfg"
KEYS = {DOCKER_CONFIG_JSON: ".dockerconfigjson", DOCKER_CFG: ".dockercfg"}
DEFAULT_REGISTRY_HOST = "index.docker.io"


def _split(url: str) -> tuple[str, str, str]:
    """ParseSchemelessURL, then SplitURL: (host name, port, path)."""
    parts = urlsplit(url if "://" in url else "https://" + url)
    host, _, port = parts.netloc.rpartition(":") if ":" in parts.netloc else (parts.netloc, "", "")
    return host, port, parts.path


def urls_match(glob: str, target: str) -> bool:
    """URLsMatchStr: a keyring key against an image's repository (both schemeless)."""
    glob_host, glob_port, glob_path = _split(glob)
    host, port, path = _split(target)
    glob_parts, parts = glob_host.split("."), host.split(".")
    if glob_port != port or len(glob_parts) != len(parts) or not path.startswith(glob_path):
        return False
    return all(fnmatchcase(part, pattern) for pattern, part in zip(glob_parts, parts))


def _key(server: str) -> str:
    """The key an entry is filed under: its host and path, `/v1/` and `/v2/` dropped, no scheme."""
    parts = urlsplit(server if server.startswith(("http://", "https://")) else "https://" + server)
    path = parts.path[3:] if parts.path.startswith(("/v1/", "/v2/")) else parts.path
    return parts.netloc + path if path and path != "/" else parts.netloc


def _entry(entry: dict) -> dict:
    """DockerConfigEntry.UnmarshalJSON: `auth` decoded over username and password; the CRI AuthConfig."""
    username, password = entry.get("username") or "", entry.get("password") or ""
    if entry.get("auth"):
        try:
            username, _, password = base64.b64decode(entry["auth"]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            username, password = "", ""
    return {"username": username, "password": password}


@dataclass
class Keyring:
    creds: dict[str, list[dict]] = field(default_factory=dict)

    def add(self, config: dict) -> None:
        for server, entry in config.items():
            if isinstance(entry, dict):
                self.creds.setdefault(_key(server), []).append(_entry(entry))

    def lookup(self, repository: str) -> list[dict]:
        """The AuthConfigs to try for a repository (`127.0.0.1:5001/private/busybox`), in order."""
        found = [c for key in sorted(self.creds, reverse=True) if urls_match(key, repository)
                 for c in self.creds[key]]
        if not found and repository.startswith(("docker.io/", "index.docker.io/")):
            found = list(self.creds.get(DEFAULT_REGISTRY_HOST, []))
        return found


def docker_config(secret: dict) -> dict:
    """The servers' entries of one pull secret (empty for another type, or what does not parse)."""
    key = KEYS.get(secret.get("type") or "")
    raw = (secret.get("data") or {}).get(key or "")
    if not raw:
        return {}
    try:
        config = json.loads(base64.b64decode(raw))
    except (binascii.Error, ValueError):
        return {}
    if secret.get("type") == DOCKER_CONFIG_JSON:
        config = config.get("auths") if isinstance(config, dict) else None
    return config if isinstance(config, dict) else {}


def from_secrets(secrets: list[dict]) -> Keyring:
    """MakeDockerKeyring over the pod's pull secrets that could be read."""
    keyring = Keyring()
    for secret in secrets:
        keyring.add(docker_config(secret))
    return keyring
