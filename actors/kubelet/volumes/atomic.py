"""Kubernetes' atomic writer (`pkg/volume/util/atomic_writer.go`): a volume's files live in a
timestamped `..<YYYY_MM_DD_HH_MM_SS.N>` folder, `..data` links to it, and each top-level name is a
link `<name> -> ..data/<name>`. An update writes a new folder, points `..data_tmp` at it and renames
that over `..data` (one atomic step for a reader), adds the new top-level links, removes the dropped
ones and the old folder. Nothing is written when the payload equals what is there."""
from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

DATA, DATA_TMP = "..data", "..data_tmp"
Payload = dict[str, tuple[bytes, int]]  # relative path -> (content, mode)


def check_path(path: str) -> None:
    """A payload path: relative, no `..` element, not starting with `..`."""
    if path.startswith("/") or path.startswith(".."):
        raise ValueError(f"invalid path {path!r}: must be relative and must not start with '..'")
    if ".." in path.split("/"):
        raise ValueError(f"invalid path {path!r}: must not contain '..'")


def current(target: Path) -> Payload:
    """What `..data` holds now (empty when there is none)."""
    data = target / DATA
    if not data.is_symlink():
        return {}
    found: Payload = {}
    for root, _, files in os.walk(data, followlinks=True):
        for name in files:
            path = Path(root, name)
            found[str(path.relative_to(data))] = (path.read_bytes(), path.stat().st_mode & 0o7777)
    return found


def write(target: Path, payload: Payload) -> bool:
    """Make `target` hold exactly `payload`; True when it changed."""
    for path in payload:
        check_path(path)
    target.mkdir(parents=True, exist_ok=True)
    if (target / DATA).is_symlink() and current(target) == payload:
        return False
    old = os.readlink(target / DATA) if (target / DATA).is_symlink() else None
    fresh = _write_folder(target, payload)
    tmp = target / DATA_TMP
    if tmp.is_symlink():
        tmp.unlink()
    os.symlink(fresh, tmp)
    os.rename(tmp, target / DATA)
    tops = {path.split("/")[0] for path in payload}
    for name in tops:
        if not (target / name).is_symlink():
            os.symlink(f"{DATA}/{name}", target / name)
    for entry in target.iterdir():
        if not entry.name.startswith("..") and entry.is_symlink() and entry.name not in tops:
            entry.unlink()
    if old:
        shutil.rmtree(target / old, ignore_errors=True)
    return True


def _write_folder(target: Path, payload: Payload) -> str:
    name = f"..{time.strftime('%Y_%m_%d_%H_%M_%S', time.gmtime())}.{secrets.randbelow(10 ** 9)}"
    folder = target / name
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    for path, (content, mode) in payload.items():
        file = folder / path
        file.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        file.write_bytes(content)
        os.chmod(file, mode)
    return name
