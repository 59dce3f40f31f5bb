"""The local registry: the OS's `docker-registry serve` with a configuration kubus writes, and a client
of its distribution API (push blobs and manifests, read them back, list repositories and tags).

The shipped /etc/docker/registry/config.yml asks for htpasswd logins, so kubus never uses it: its
own file keeps the storage under a data dir it is given and listens on 127.0.0.1 only."""
from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from runtime.images import oci

log = structlog.get_logger("images.registry")
BINARY = "docker-registry"
ACCEPT = ", ".join((*oci.MANIFESTS, oci.INDEX, oci.DOCKER_LIST))
TIMEOUT_S = 30.0
START_TIMEOUT_S = 20.0


class RegistryUnavailable(RuntimeError):
    """Nothing answers at the registry's address."""


class RegistryError(RuntimeError):
    """The registry answered with an error (its `errors[].code` and message)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{code}: {message}" if code else message)
        self.status, self.code = status, code


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict
    body: bytes


class Client:
    """The distribution API of one registry, e.g. Client("http://127.0.0.1:5000")."""

    def __init__(self, url: str, timeout: float = TIMEOUT_S, login: tuple[str, str] | None = None):
        self.url, self.timeout = url.rstrip("/"), timeout
        self.authorization = "Basic " + base64.b64encode(":".join(login).encode()).decode() if login else ""

    def request(self, method: str, path_or_url: str, body: bytes | None = None, headers: dict | None = None,
                ok: tuple[int, ...] = (200,)) -> Response:
        url = path_or_url if "://" in path_or_url else self.url + path_or_url
        headers = {**(headers or {}), **({"Authorization": self.authorization} if self.authorization else {})}
        req = urllib.request.Request(url, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                answer = Response(resp.status, dict(resp.headers), resp.read())
        except urllib.error.HTTPError as exc:
            answer = Response(exc.code, dict(exc.headers), exc.read())
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise RegistryUnavailable(f"the image registry at {self.url} does not answer ({reason})") from None
        if answer.status not in ok:
            raise _error(method, url, answer)
        return answer

    def answering(self) -> bool:
        try:
            return self.request("GET", "/v2/").status == 200
        except (RegistryUnavailable, RegistryError):
            return False

    def has_blob(self, repository: str, digest: str) -> bool:
        return self.request("HEAD", f"/v2/{repository}/blobs/{digest}", ok=(200, 404)).status == 200

    def blob(self, repository: str, digest: str) -> bytes:
        return self.request("GET", f"/v2/{repository}/blobs/{digest}").body

    def upload(self, repository: str, blob: oci.Blob, mount_from: str = "") -> bool:
        """A monolithic upload: POST for a session, then PUT the bytes to its Location `&digest=`. With
        `mount_from`, the POST asks for the blob of that repository first: True when it was mounted."""
        mount = f"?mount={blob.digest}&from={mount_from}" if mount_from else ""
        started = self.request("POST", f"/v2/{repository}/blobs/uploads/{mount}", b"", ok=(201, 202))
        if started.status == 201:
            return True
        location = _header(started, "Location")
        joiner = "&" if "?" in location else "?"
        self.request("PUT", f"{location}{joiner}digest={blob.digest}", blob.data,
                     {"Content-Type": "application/octet-stream"}, ok=(201,))
        return False

    def put_manifest(self, repository: str, tag: str, manifest: oci.Blob) -> str:
        done = self.request("PUT", f"/v2/{repository}/manifests/{tag}", manifest.data,
                            {"Content-Type": manifest.media_type}, ok=(201,))
        return _header(done, "Docker-Content-Digest") or manifest.digest

    def manifest(self, repository: str, reference: str) -> oci.Blob:
        """The manifest under a tag or digest, as stored (its bytes are what its digest names)."""
        got = self.request("GET", f"/v2/{repository}/manifests/{reference}", headers={"Accept": ACCEPT})
        media_type = _header(got, "Content-Type") or json.loads(got.body).get("mediaType", oci.MANIFEST)
        return oci.Blob(media_type.split(";")[0].strip(), got.body)

    def tags(self, repository: str) -> list[str]:
        got = self.request("GET", f"/v2/{repository}/tags/list", ok=(200, 404))
        return sorted(json.loads(got.body).get("tags") or []) if got.status == 200 else []

    def repositories(self) -> list[str]:
        return sorted(json.loads(self.request("GET", "/v2/_catalog?n=1000").body).get("repositories") or [])

    def push(self, repository: str, blobs: list[oci.Blob], manifest: oci.Blob, tags: list[str],
             mount_from: dict[str, str] | None = None) -> "Pushed":
        """Upload the blobs the registry lacks (a HEAD first; mounted from the repository `mount_from`
        names for the digest, when it does), then the manifest under every tag."""
        pushed = Pushed(manifest.digest)
        for blob in blobs:
            if self.has_blob(repository, blob.digest):
                pushed.skipped.append(blob.digest)
            elif self.upload(repository, blob, (mount_from or {}).get(blob.digest, "")):
                pushed.mounted.append(blob.digest)
            else:
                pushed.uploaded.append(blob.digest)
        for tag in tags:
            self.put_manifest(repository, tag, manifest)
        return pushed


@dataclass
class Pushed:
    digest: str  # the manifest's
    uploaded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # blobs already there
    mounted: list[str] = field(default_factory=list)  # blobs of another repository, linked without an upload


def _header(response: Response, name: str) -> str:
    return next((value for key, value in response.headers.items() if key.lower() == name.lower()), "")


def _error(method: str, url: str, answer: Response) -> RegistryError:
    try:
        first = (json.loads(answer.body).get("errors") or [{}])[0]
    except (ValueError, AttributeError):
        first = {}
    message = first.get("message") or answer.body.decode(errors="replace").strip() or f"HTTP {answer.status}"
    return RegistryError(answer.status, first.get("code", ""), f"{method} {url}: {message}")


def answering(url: str) -> bool:
    """Whether a registry answers `GET /v2/` at `url`."""
    return Client(url, timeout=2.0).answering()


def _responds(url: str) -> bool:
    """Whether a registry answers at all (a registry asking for logins says 401)."""
    try:
        return Client(url, timeout=2.0).request("GET", "/v2/", ok=(200, 401)).status in (200, 401)
    except (RegistryUnavailable, RegistryError):
        return False


# -- the registry process --------------------------------------------------------------------------

def config_text(data_dir: Path, address: str, htpasswd: Path | None = None) -> str:
    """The registry's configuration: filesystem storage under `data_dir`, plain HTTP on `address`; with
    `htpasswd` (a file of `user:bcrypt hash` lines), logins are asked for (distribution's `auth: htpasswd`)."""
    auth = f"auth:\n  htpasswd:\n    realm: kubus\n    path: {htpasswd}\n" if htpasswd else ""
    return (f"version: 0.1\nlog:\n  level: warn\n  accesslog:\n    disabled: false\n"
            f"storage:\n  filesystem:\n    rootdirectory: {data_dir / 'data'}\n  delete:\n    enabled: true\n"
            f"http:\n  addr: {address}\n{auth}")


@dataclass
class Server:
    url: str
    pid: int
    process: subprocess.Popen | None = None  # None when this process did not start it (a pid file's)

    def stop(self, timeout: float = 10.0) -> None:
        _terminate(self.pid, timeout)
        if self.process:
            self.process.wait(timeout)


def serve(data_dir: Path, address: str = "127.0.0.1:5000", detached: bool = False,
          htpasswd: Path | None = None) -> Server:
    """Start `docker-registry serve` on `address` (host:port) and wait until `GET /v2/` answers (401
    when it asks for logins: `htpasswd`). `detached`: it outlives this process (its own session; its pid
    in `data_dir/registry.pid`)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    config = data_dir / "config.yml"
    config.write_text(config_text(data_dir.resolve(), address, htpasswd))
    with open(data_dir / "registry.log", "ab") as out:
        try:
            proc = subprocess.Popen([BINARY, "serve", str(config)], stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except FileNotFoundError:
            raise RegistryUnavailable(f"{BINARY} is not installed (the OS package docker-registry; "
                                      f"`make containers` installs it)") from None
    server = Server(f"http://{address}", proc.pid, proc)
    _wait_answering(server, data_dir / "registry.log")
    (data_dir / "registry.pid").write_text(f"{proc.pid}\n")
    log.info("registry started", url=server.url, pid=proc.pid, data=str(data_dir), detached=detached)
    return server


def _wait_answering(server: Server, log_file: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _responds(server.url):
        if server.process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            tail = log_file.read_text(errors="replace").strip().splitlines()[-3:]
            raise RegistryUnavailable(f"the registry at {server.url} did not start: {' / '.join(tail)}")
        time.sleep(0.05)


def stop_detached(data_dir: Path) -> bool:
    """Stop the registry whose pid `serve` wrote under `data_dir`; False when there is none running."""
    pid_file = data_dir / "registry.pid"
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return False
    pid_file.unlink(missing_ok=True)
    if not _is_registry(pid):
        return False
    _terminate(pid, 10.0)
    return True


def _is_registry(pid: int) -> bool:
    try:
        return BINARY in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _terminate(pid: int, timeout: float) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while _is_registry(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _is_registry(pid):
        os.kill(pid, signal.SIGKILL)
    try:
        os.waitpid(pid, 0)  # our own child (started detached by this process) is reaped, not left a zombie
    except ChildProcessError:
        pass
