"""Building nodes, pods and a NodeTable for plugin tests."""
from __future__ import annotations

import itertools

import numpy as np

from actors.scheduler.framework import Context
from actors.scheduler.nodes import NodeTable
from actors.scheduler.podinfo import pod_info

_uid = itertools.count()


def node(name: str, cpu="4", memory="8Gi", pods="110", labels=None, taints=None, unschedulable=False, **extra) -> dict:
    alloc = {"cpu": cpu, "memory": memory, "pods": pods, **extra}
    return {"kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": {"taints": taints or [], "unschedulable": unschedulable}, "status": {"allocatable": alloc}}


def pod(name: str = "p", cpu=None, memory=None, namespace="default", labels=None, node_name="", **spec) -> dict:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    container = {"name": "c", "image": "x", "resources": {"requests": requests} if requests else {}}
    return {"kind": "Pod", "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{next(_uid)}",
                                        "labels": labels or {}},
            "spec": {"containers": [container], "nodeName": node_name, **spec}, "status": {"phase": "Pending"}}


def table(*nodes: dict, pods: tuple[tuple[dict, str], ...] = ()) -> NodeTable:
    t = NodeTable(capacity=2)
    for n in nodes:
        t.upsert_node(n)
    for p, where in pods:
        t.add_pod(pod_info(p), where)
    return t


def ctx(t: NodeTable, p: dict, **extra) -> Context:
    return Context(pod_info(p), t, extra=extra)


def scores(plugin, t: NodeTable, p: dict) -> list[int]:
    c = ctx(t, p)
    idx = np.arange(len(t))
    assert plugin.pre_score(c, idx)
    return [int(s) for s in plugin.normalize(c, plugin.score(c, idx))]


def verdicts(plugin, t: NodeTable, p: dict) -> list[int]:
    c = ctx(t, p)
    if not plugin.pre_filter(c):
        return [0] * len(t)
    return [int(x) for x in plugin.filter(c, np.arange(len(t))).codes]
