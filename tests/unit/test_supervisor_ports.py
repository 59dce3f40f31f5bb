"""`kubus up` with KUBUS_METRICS_PORT: every actor process its own metrics port (pure: no process starts)."""
from __future__ import annotations

import io

from config.cluster import ActorSpec
from runtime.supervisor import Supervisor


def test_each_child_gets_its_own_metrics_port_from_the_first_up():
    actors = [ActorSpec(name="store", module="store", instances=2), ActorSpec(name="apiserver", module="x")]
    out = io.StringIO()
    sup = Supervisor(actors, {"KUBUS_METRICS_PORT": "19100"}, out=out)
    assert [(c.label, c.env["KUBUS_METRICS_PORT"]) for c in sup.children] == \
           [("store-1", "19100"), ("store-2", "19101"), ("apiserver", "19102")]
    assert "metrics of apiserver: http://127.0.0.1:19102/metrics" in out.getvalue()
    assert all("KUBUS_METRICS_PORT" not in c.env for c in Supervisor(actors, {}, out=out).children)
