"""A registry for a test session, with kubus's images in it: `session_registry()` → its URL.

It reuses the registry that answers at 127.0.0.1:5000 (`make images` leaves one running), else starts
one whose data lives in ~/.cache/kubus/registry, so the next session's pushes skip every blob; it
stops, at exit, only a registry it started. Either way busybox, pause and python are pushed (blobs
the registry has are skipped: a few seconds to build, nothing to upload)."""
from __future__ import annotations

import atexit
import threading
from pathlib import Path

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
