"""A registry for a test session, with kubus's images in it: `session_registry()` → its URL.

It reuses the registry that answers at 127.0.0.1:5000 (`make images` leaves one running), else starts
one whose data lives in ~/.cache/kubus/registry, so the next session's pushes skip every blob; it
stops, at exit, only a registry it started. Either way busybox, pause, python and nginx are pushed (blobs
the registry has are skipped: a few seconds to build, nothing to upload)."""
from __future__ import annotations

import atexit
import shutil
import socket
import threading
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from runtime.images import recipes, registry

ADDRESS = "127.0.0.1:5000"
CACHE = Path.home() / ".cache" / "kubus" / "registry"

_lock = threading.Lock()
_ready: dict[str, dict[str, str]] = {}  # registry URL → image reference → digest, pushed this session
_started: list[registry.Server] = []


def session_registry(address: str = ADDRESS, data_dir: Path = CACHE) -> str:
    """The URL of a registry at `address` holding kubus's images (started here if none answers)."""
    url = f"http://{address}"
    with _lock:
        if url not in _ready:
            _ensure_serving(url, address, data_dir)
            _ready[url] = recipes.build_and_push(registry.Client(url))
    return url


def images(url: str) -> dict[str, str]:
    """Image reference → digest, of what `session_registry` pushed to `url`."""
    return dict(_ready.get(url, {}))


def _ensure_serving(url: str, address: str, data_dir: Path) -> None:
    if registry.answering(url):
        return
    try:
        server = registry.serve(data_dir, address)
    except registry.RegistryUnavailable:
        if registry.answering(url):  # another session started one at the same moment
            return
        raise
    if not _started:
        atexit.register(stop_started)
    _started.append(server)


def started() -> list[str]:
    """The URLs of the registries this process started (and will stop at exit)."""
    return [server.url for server in _started]


def stop_started() -> None:
    """Stop the registries this process started; those it reused keep running."""
    with _lock:
        while _started:
            server = _started.pop()
            server.stop()
            _ready.pop(server.url, None)


# -- a registry that asks for logins (imagePullSecrets) --------------------------------------------

def _bcrypt(password: str) -> str:
    """A bcrypt hash (`$2b$`), the only kind distribution's htpasswd takes: glibc's crypt (libxcrypt)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import crypt  # deprecated since 3.11, still here; no other bcrypt without a new package
    return crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 5))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def private_registry(folder: Path, login: tuple[str, str], repository: str = "private/busybox") -> Iterator[str]:
    """A second registry, on a free loopback port, that asks for `login` (htpasswd: distribution's
    `auth: htpasswd` with a bcrypt entry) and holds busybox as `<repository>:<its tags>`; its URL. It is
    stopped and its folder removed after."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "htpasswd").write_text(f"{login[0]}:{_bcrypt(login[1])}\n")
    server = registry.serve(folder / "registry", f"127.0.0.1:{_free_port()}", htpasswd=folder / "htpasswd")
    try:
        box = next(r for r in recipes.recipes() if r.repository == "library/busybox")
        built = box.build()
        registry.Client(server.url, login=login).push(repository, built.blobs(), built.manifest, list(box.tags), {})
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
