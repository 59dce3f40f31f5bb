"""The scheduler's view of the nodes as columns: one numpy array per quantity, so a filter or a
score runs over thousands of nodes at once. Pods on each node are kept for the plugins that
look at them (ports, spread, inter-pod affinity)."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from actors.scheduler.podinfo import PodInfo
from api.resources import quantity_of

BASE = ("cpu", "memory", "ephemeral-storage", "pods")


class NodeTable:
    def __init__(self, capacity: int = 64):
        self.cap = capacity
        self.n = 0
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.nodes: list[dict] = []
        self.labels: list[dict[str, str]] = []
        self.pods: list[dict[str, PodInfo]] = []
        self.alloc: dict[str, np.ndarray] = {r: self._zeros() for r in BASE}
        self.req: dict[str, np.ndarray] = {r: self._zeros() for r in BASE}
        self.nz_cpu, self.nz_mem = self._zeros(), self._zeros()
        self.unschedulable = np.zeros(capacity, dtype=bool)
        self.taint_set = np.zeros(capacity, dtype=np.int32)
        self.taint_sets: list[tuple] = [()]
        self._taint_ids: dict[tuple, int] = {(): 0}
        self.pod_node: dict[str, str] = {}  # uid -> node name
        self.affinity_pods: dict[str, PodInfo] = {}  # counted pods with (anti-)affinity terms
        self.waiting: dict[str, dict[str, PodInfo]] = {}  # pods bound to nodes not seen yet
        self._label_columns: dict[str, np.ndarray] = {}
        self.version = 0  # bumps on every change, for per-cycle caches

    def _zeros(self) -> np.ndarray:
        return np.zeros(self.cap, dtype=np.int64)

    def __len__(self) -> int:
        return self.n

    # ---- nodes ---------------------------------------------------------------------------------
    def upsert_node(self, node: dict) -> None:
        name = node["metadata"]["name"]
        i = self.index.get(name)
        if i is None:
            i = self._append(name)
        self.nodes[i] = node
        self.labels[i] = dict(node["metadata"].get("labels") or {})
        alloc = (node.get("status") or {}).get("allocatable") or (node.get("status") or {}).get("capacity") or {}
        for res in set(alloc) | set(self.alloc):
            self._column(res, self.alloc)[i] = quantity_of(res, alloc[res]) if res in alloc else 0
        spec = node.get("spec") or {}
        self.unschedulable[i] = bool(spec.get("unschedulable"))
        self.taint_set[i] = self._taint_id(spec.get("taints") or [])
        self._label_columns.clear()
        self.version += 1
        for info in self.waiting.pop(name, {}).values():
            self._account(info, i, +1)

    def _append(self, name: str) -> int:
        if self.n == self.cap:
            self._grow()
        i = self.n
        self.n += 1
        self.names.append(name)
        self.index[name] = i
        self.nodes.append({})
        self.labels.append({})
        self.pods.append({})
        return i

    def _grow(self) -> None:
        self.cap *= 2
        for columns in (self.alloc, self.req):
            for res, col in columns.items():
                columns[res] = np.resize(col, self.cap)
                columns[res][self.n:] = 0
        for attr in ("nz_cpu", "nz_mem", "unschedulable", "taint_set"):
            col = np.resize(getattr(self, attr), self.cap)
            col[self.n:] = 0
            setattr(self, attr, col)

    def _column(self, res: str, columns: dict[str, np.ndarray]) -> np.ndarray:
        if res not in columns:
            self.alloc.setdefault(res, self._zeros())
            self.req.setdefault(res, self._zeros())
        return columns[res]

    def _taint_id(self, taints: list[dict]) -> int:
        key = tuple((t.get("key", ""), t.get("value") or "", t.get("effect", "")) for t in taints)
        if key not in self._taint_ids:
            self._taint_ids[key] = len(self.taint_sets)
            self.taint_sets.append(key)
        return self._taint_ids[key]

    def remove_node(self, name: str) -> None:
        """Swap the last node into the hole; its pods wait for the node to come back."""
        i = self.index.pop(name, None)
        if i is None:
            return
        self.waiting[name] = self.pods[i]
        last = self.n - 1
        for columns in (self.alloc, self.req):
            for col in columns.values():
                col[i], col[last] = col[last], 0
        for attr in ("nz_cpu", "nz_mem", "unschedulable", "taint_set"):
            col = getattr(self, attr)
            col[i], col[last] = col[last], 0
        for seq in (self.names, self.nodes, self.labels, self.pods):
            seq[i] = seq[last]
            seq.pop()
        if i != last:
            self.index[self.names[i]] = i
        self.n -= 1
        self._label_columns.clear()
        self.version += 1

    # ---- pods ----------------------------------------------------------------------------------
    def add_pod(self, info: PodInfo, node: str) -> None:
        """Count a pod on a node (bound, or assumed by this scheduler). Re-adding replaces."""
        self.remove_pod(info.uid)
        self.pod_node[info.uid] = node
        i = self.index.get(node)
        if i is None:
            self.waiting.setdefault(node, {})[info.uid] = info
            return
        self._account(info, i, +1)

    def remove_pod(self, uid: str) -> PodInfo | None:
        node = self.pod_node.pop(uid, None)
        if node is None:
            return None
        i = self.index.get(node)
        if i is None:
            return self.waiting.get(node, {}).pop(uid, None)
        info = self.pods[i].get(uid)
        if info is not None:
            self._account(info, i, -1)
        return info

    def _account(self, info: PodInfo, i: int, sign: int) -> None:
        if sign > 0:
            self.pods[i][info.uid] = info
            if info.has_affinity:
                self.affinity_pods[info.uid] = info
        else:
            self.pods[i].pop(info.uid, None)
            self.affinity_pods.pop(info.uid, None)
        for res, qty in info.requests.items():
            self._column(res, self.req)[i] += sign * qty
        self.req["pods"][i] += sign
        self.nz_cpu[i] += sign * info.nonzero_cpu
        self.nz_mem[i] += sign * info.nonzero_mem
        self.version += 1

    # ---- reading -------------------------------------------------------------------------------
    def label_column(self, key: str) -> np.ndarray:
        """The value of label `key` on every node (None where absent)."""
        col = self._label_columns.get(key)
        if col is None:
            col = np.array([labels.get(key) for labels in self.labels] + [None], dtype=object)[:self.n]
            self._label_columns[key] = col
        return col

    def pods_on(self, i: int) -> Iterable[PodInfo]:
        return self.pods[i].values()
