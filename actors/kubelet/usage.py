"""The kubelet's resource metrics (its `/metrics/resource` in Kubernetes): every resolution (setting
`metrics_resolution_s`, 15 s as metrics-server's manifest scrapes) one `sample` message per node — each running
container's cumulative CPU (core-nanoseconds) and working-set memory, the node's (the sum of its pods'), its
pods' labels — sent through the default exchange to the metrics actor's queue. Never a store write. A
runtime reports a container's figures with `usage(container_id, pod, now)`; one without it reports none."""
from __future__ import annotations

from api import metrics


def sample(agent, now: float) -> dict:
    usage = getattr(agent.runtime, "usage", None)
    pods, cpu, memory = [], 0, 0
    for worker in list(agent.workers.values()):
        containers = []
        for container in [*worker.inits, *worker.apps]:
            figures = usage(container.cid, worker.pod, now) if usage and container.cid else None
            if figures is None:
                continue
            containers.append({"name": container.spec["name"], "cpu": figures[0], "memory": figures[1]})
            cpu, memory = cpu + figures[0], memory + figures[1]
        if containers:
            meta = worker.pod["metadata"]
            pods.append({"namespace": meta.get("namespace") or "default", "name": meta["name"], "uid": meta["uid"],
                         "labels": meta.get("labels") or {}, "containers": containers})
    return {"node": agent.cfg.name, "time": now, "cpu": cpu, "memory": memory, "pods": pods,
            "labels": dict(getattr(agent.cfg, "labels", None) or {})}


def publish(actor, agent) -> None:
    """One node's sample to the metrics actor; lost if nobody keeps metrics (a later one follows)."""
    actor.bus.publish("", actor.names.actor_queue(f"controller.{metrics.SERVICE}"), sample(agent, actor.clock()),
                      type="sample", user_id=actor.bus.user, expiration_s=actor.settings.metrics_resolution_s)
