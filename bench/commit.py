"""The store's group commit alone: CPU and wall time per write of SQLite commits of pod updates.

    python -m bench.commit [--commits 400] [--per-commit 36] [--no-fsync]

64 pods, each commit updating `--per-commit` of them with their events and first replies, as the
store commits a batch of bench.store (objects, log, dedupe replies, meta), in a fresh database.
"""
from __future__ import annotations

import argparse
import copy
import os
import random
import tempfile
import time
from pathlib import Path

from api.admission import admit
from bench.harness import progress, result_line
from bench.store import payload
from store.backend import Applied
from store.sqlite import SqliteBackend
from store.state import State

PODS = 64


def _batch(state: State, n: int, per_commit: int) -> list[Applied]:
    """`per_commit` pods updated in memory, with a reply each; their changes wait in `state`."""
    applied = []
    for k in random.sample(range(PODS), per_commit):
        obj = copy.deepcopy(state.objects[("Pod", "default", f"bench-{k}")].obj)
        obj["metadata"]["labels"]["n"] = str(n)
        entry = state.update("Pod", "default", obj, obj["metadata"]["resourceVersion"])
        applied.append(Applied(os.urandom(16).hex(), time.time(), entry.raw))
    return applied


def run(commits: int, per_commit: int, fsync: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="kubus-commit-") as home:
        backend = SqliteBackend(Path(home) / "s.db", fsync=fsync)
        backend.claim()
        state = State(time.time)
        state.seed_namespaces()
        for i in range(PODS):
            state.create("Pod", "default", admit("Pod", payload(i), "default"))
        cpu = wall = 0.0
        started = time.monotonic()
        for n in range(commits + 1):
            applied = _batch(state, n, per_commit)
            changes = state.take_changes()
            events = [change.event() for change in changes]
            cpu0, wall0 = time.process_time(), time.perf_counter()
            backend.commit(changes, events, applied, 0)
            if n:  # the first commit also writes the 64 creations
                cpu, wall = cpu + time.process_time() - cpu0, wall + time.perf_counter() - wall0
            progress("commits", n, commits, started)
        backend.close()
    writes = commits * per_commit
    return {"commit_cpu_us_per_write": cpu / writes * 1e6, "commit_wall_us_per_write": wall / writes * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=400)
    parser.add_argument("--per-commit", type=int, default=36)
    parser.add_argument("--no-fsync", action="store_true")
    args = parser.parse_args()
    print(result_line(per_commit=args.per_commit, **run(args.commits, args.per_commit, not args.no_fsync)))


if __name__ == "__main__":
    main()
