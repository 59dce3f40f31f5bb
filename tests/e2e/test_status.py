"""`kubus status` against a running cluster: its actors' connections (the store active), its queues,
its revision and nodes."""
from __future__ import annotations

import re

from testkit.waiting import wait_until
from testkit import cli


def test_status_shows_the_active_store_the_queues_and_the_nodes(cluster, procs, settings):
    cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})

    def status() -> str:
        out = cli.kubus("status", env=procs.env)
        assert out.returncode == 0, out.stderr
        return out.stdout

    def listed() -> str | None:  # the management API lists a connection a few seconds after it opens
        text = status()
        wanted = (f"{settings.cluster}.store", f"{settings.cluster}.apiserver", " active")
        return text if all(w in text for w in wanted) else None

    text = wait_until(listed, 30, 0.5, what="the store's and the apiserver's connections in the management API")
    rows = {tuple(line.split()[:2]) for line in text.splitlines()}
    assert ("store", f"{settings.cluster}.store") in rows and ("apiserver", f"{settings.cluster}.apiserver") in rows
    assert any(line.startswith("store ") and line.rstrip().endswith("active") for line in text.splitlines())
    assert f"{settings.cluster}.store " in text and f"{settings.cluster}.apiserver " in text
    assert "nodes 1: 0 Ready, 1 NotReady" in text and "store revision " in text
    # the store and the apiserver, and the warm parent they were forked from; not the test's own client
    assert re.search(r"^memory on this host: 3 processes, [1-9]\d* MB PSS$", text, re.M), text
