"""The memory of a cluster's processes on this host, as PSS: a page shared by N processes counts 1/N
in each, so the warm parent's pages that every forked actor shares are counted once in the sum (RSS
would count them in every child). Which processes: those holding the cluster's broker connections
(found by their local TCP port, as `ss -p` finds them), and the warm parents they were forked from."""
from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
WARM_PARENT = b"runtime.forkserver"


def pss_kib(pid: int) -> int:
    """The process's proportional set size in KiB (0 when it is gone or not ours to read)."""
    try:
        for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def pids_of_ports(ports: set[int]) -> set[int]:
    """The processes on this host whose TCP sockets have these local ports."""
    inodes = {f"socket:[{inode}]" for inode in _socket_inodes(ports)}
    return {int(fds.parent.name) for fds in PROC.glob("[0-9]*/fd") if inodes & _links(fds)} if inodes else set()


def _links(fds: Path) -> set[str]:
    """Where a process's file descriptors point (those that vanish meanwhile left out)."""
    try:
        names = os.listdir(fds)
    except OSError:
        return set()
    links = set()
    for name in names:
        try:
            links.add(os.readlink(fds / name))
        except OSError:
            continue
    return links


def _socket_inodes(ports: set[int]) -> set[str]:
    inodes = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) in ports:
                inodes.add(fields[9])
    return inodes


def warm_parents(pids: set[int]) -> set[int]:
    """The fork servers these processes were forked from."""
    parents = set()
    for pid in pids:
        try:
            ppid = int((PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if WARM_PARENT in (PROC / str(ppid) / "cmdline").read_bytes():
                parents.add(ppid)
        except (OSError, ValueError, IndexError):
            continue
    return parents


def cluster_memory(ports: set[int]) -> tuple[int, int]:
    """(processes, PSS in KiB) of the processes holding these ports and their warm parents."""
    pids = pids_of_ports(ports)
    pids |= warm_parents(pids)
    return len(pids), sum(pss_kib(pid) for pid in pids)
