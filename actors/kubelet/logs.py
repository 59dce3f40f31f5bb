"""Serving `kubus logs`: a container instance's log (actors/kubelet/logfiles), from an offset of its
whole output, or its last `tail` lines, at most `limitBytes` (and never more than MAX_CHUNK).

`tail` is found from the end, reading back block by block, never more than MAX_CHUNK: the kubelet's
memory does not grow with the log. Last lines longer than that together start mid-line.
"""
from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path

from actors.kubelet.cri import crilogs
from actors.kubelet.logfiles import LogStream
from actors.kubelet.worker import PodWorker
from api.errors import not_found
from api.times import seconds
from api.status import bad_request

MAX_CHUNK = 256 * 1024  # one reply's text, at most; as far back as `tail` looks
BLOCK = 8 * 1024


def read_logs(worker: PodWorker | None, name: str, options: dict) -> dict:
    """{ok, text, offset}: text from `offset` (or the last `tail` lines), and where to go on from."""
    if worker is None:
        raise not_found("Pod", name)
    containers = {c.name: c for c in worker.inits + worker.apps}
    container = options.get("container") or (worker.apps[0].name if len(worker.apps) == 1 else None)
    if container is None:
        raise bad_request(f"a container name must be specified for pod {name}, choose one of: "
                          f"{sorted(c.name for c in worker.apps)}")
    c = containers.get(container)
    if c is None:
        raise bad_request(f"container {container} is not valid for pod {name}")
    if c.instances == 0:
        raise bad_request(f'container "{container}" in pod "{name}" is waiting to start')
    instance = c.instances - 1
    if options.get("previous"):
        if c.instances < 2:
            raise bad_request(f'previous terminated container "{container}" in pod "{name}" not found')
        instance -= 1
    path = worker.runtime.log_path(worker.uid, container, instance)
    if path is None:  # a simulated container prints nothing (its log is empty, as a quiet real one's is), or
        # a process container's file is between its rotation and the next: nothing, and the reader stays
        # where it was (answering 0 sent a follow back to the start of the output)
        result = {"ok": True, "text": "", "offset": options.get("offset") or 0}
    elif getattr(worker.runtime, "log_format", "") == "cri":
        result = _read_cri(path, options)
    else:
        with LogStream.open(Path(path)) as stream:
            result = _read(stream, options)
    result["running"] = c.running and not options.get("previous")
    return result


def _read(stream: LogStream, options: dict) -> dict:
    limit = min(options.get("limitBytes") or MAX_CHUNK, MAX_CHUNK)
    offset = options.get("offset")
    if offset is None:
        tail = options.get("tail")
        offset = stream.first if tail is None else tail_start(stream, tail)
    text = stream.read(max(offset, stream.first), limit)
    return {"ok": True, "text": text.decode("utf-8", "replace"), "offset": max(offset, stream.first) + len(text)}


def _read_cri(path: str, options: dict) -> dict:
    """The same answer from a CRI log file (actors/kubelet/cri/crilogs): its records' text, and the
    place to go on from packed into the one integer the `offset` of the wire carries."""
    limit = min(options.get("limitBytes") or MAX_CHUNK, MAX_CHUNK)
    offset = options.get("offset")
    chunk = crilogs.read_from(path, None if offset is None else _unpack(offset, path), tail=options.get("tail"),
                              since=since(options), timestamps=bool(options.get("timestamps")), max_bytes=limit)
    return {"ok": True, "text": chunk.text.decode("utf-8", "replace"), "offset": _pack(chunk.cursor)}


def since(options: dict, now: float | None = None) -> datetime | None:
    """The later of now − sinceSeconds and sinceTime, as the kubelet reads PodLogOptions."""
    found = [datetime.fromtimestamp(seconds(options["sinceTime"]), timezone.utc)] if options.get("sinceTime") else []
    if options.get("sinceSeconds"):
        found.append(datetime.fromtimestamp((now or time.time()) - options["sinceSeconds"], timezone.utc))
    return max(found) if found else None


INODE_BITS, OFFSET_BITS = 26, 36  # inode (low bits: tells a rotated file from the new one), offset, open line


def _pack(cursor: str) -> int:
    inode, offset, open_line = (int(part) for part in cursor.split(":"))
    return ((inode % (1 << INODE_BITS)) << (OFFSET_BITS + 1)) | (offset << 1) | open_line


def _unpack(packed: int, path: str) -> str:
    """The cursor again, with the whole inode of the file (current or rotated) its low bits name."""
    low, rest = packed >> (OFFSET_BITS + 1), packed % (1 << (OFFSET_BITS + 1))
    folder, name = os.path.split(path)
    inodes = [entry.inode() for entry in os.scandir(folder) if entry.name == name or entry.name.startswith(name + ".")]
    inode = next((i for i in inodes if i % (1 << INODE_BITS) == low), low)
    return f"{inode}:{rest >> 1}:{rest & 1}"


def tail_start(stream: LogStream, lines: int) -> int:
    """Where the last `lines` lines begin (a last line without its newline counts), looking back
    MAX_CHUNK bytes at most."""
    if lines <= 0:
        return stream.end
    end = stream.end
    if end > stream.first and stream.read(end - 1, 1) == b"\n":
        end -= 1  # the newline ending the last line starts no line after it
    floor = max(stream.first, stream.end - MAX_CHUNK)
    at, found = end, 0
    while at > floor:
        low = max(floor, at - BLOCK)
        block = stream.read(low, at - low)
        cut = len(block)
        while (cut := block.rfind(b"\n", 0, cut)) >= 0:
            found += 1
            if found == lines:
                return low + cut + 1
        at = low
    return floor
