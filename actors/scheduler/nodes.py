"""The scheduler's view of the nodes as columns: one numpy array per quantity, so a filter or a
score runs over thousands of nodes at once. Pods on each node are kept for the plugins that
look at them (ports, spread, inter-pod affinity).

Spreading and inter-pod affinity count, every cycle, the pods some selector matches in each
topology domain. Scanning every pod for that costs milliseconds on a big cluster, so the table
keeps such counts per node as columns, updated as pods come and go: for the selectors asked of
it lately (`match_counts`), and for the affinity terms the counted pods carry (`term_counts`).
A cycle then sums columns by domain (`domain_sums`) instead of looking at pods."""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Hashable, Iterable

import numpy as np

from actors.scheduler.plugins.podmatch import term_groups
from actors.scheduler.podinfo import PodInfo
from api.resources import quantity_of

BASE = ("cpu", "memory", "ephemeral-storage", "pods")
# Selectors whose per-node counts are kept. Every pod added or removed is tested against each
# (about 1 µs a selector), so few: enough for the workloads being scheduled at once (a rollout asks
# for one selector in a row), and only while they are asked for: one not asked for in IDLE_CHANGES
# changes of the table is dropped, and counted afresh (one scan of the pods) when asked again.
MATCH_KEYS = 16
IDLE_CHANGES = 4096


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
        self._label_codes: dict[str, tuple[np.ndarray, list[str]]] = {}
        # match -> [per-node count of the counted pods it matches, version when last asked for],
        # least recently asked first
        self._matches: OrderedDict[Hashable, list] = OrderedDict()
        # (kind, topologyKey, match, weight) of podmatch.term_groups -> per-node count of pods with such a term
        self.term_counts: dict[tuple, np.ndarray] = {}
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
        self._labels_changed()
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
        for entry in self._matches.values():
            entry[0] = np.resize(entry[0], self.cap)
            entry[0][self.n:] = 0
        for key, col in self.term_counts.items():
            self.term_counts[key] = np.resize(col, self.cap)
            self.term_counts[key][self.n:] = 0

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
        for col in [entry[0] for entry in self._matches.values()] + list(self.term_counts.values()):
            col[i], col[last] = col[last], 0
        for seq in (self.names, self.nodes, self.labels, self.pods):
            seq[i] = seq[last]
            seq.pop()
        if i != last:
            self.index[self.names[i]] = i
        self.n -= 1
        for group in [g for g, col in self.term_counts.items() if not col[:self.n].any()]:
            del self.term_counts[group]  # its pods wait for a node that is gone
        self._labels_changed()

    def _labels_changed(self) -> None:
        self._label_columns.clear()
        self._label_codes.clear()
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
        for match, (col, _asked) in self._matches.items():
            if match(info):
                col[i] += sign
        if info.has_affinity:
            self._count_terms(info, i, sign)
        self.version += 1
        self._drop_idle()

    def _drop_idle(self) -> None:
        """Stop counting for selectors nobody asked for lately (the least recent come first)."""
        while self._matches and self.version - next(iter(self._matches.values()))[1] > IDLE_CHANGES:
            self._matches.popitem(last=False)

    def _count_terms(self, info: PodInfo, i: int, sign: int) -> None:
        for group in term_groups(info):
            col = self.term_counts.get(group)
            if col is None:
                col = self.term_counts[group] = self._zeros()
            col[i] += sign
            if sign < 0 and not col[i] and not col[:self.n].any():
                del self.term_counts[group]  # the last such pod went: forget the term

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

    def label_codes(self, key: str) -> tuple[np.ndarray, list[str]]:
        """Label `key` as a number per node (-1 where absent) and the values the numbers stand for."""
        cached = self._label_codes.get(key)
        if cached is None:
            ids: dict[str, int] = {}
            codes = np.fromiter((-1 if v is None else ids.setdefault(v, len(ids)) for v in self.label_column(key)),
                                dtype=np.int64, count=self.n)
            cached = self._label_codes[key] = (codes, list(ids))
        return cached

    def match_counts(self, match: Callable[[PodInfo], bool]) -> np.ndarray:
        """How many counted pods on each node `match` (a hashable value: equal matches are one
        column). Read-only, and valid until the table next changes."""
        entry = self._matches.pop(match, None)
        if entry is None:
            col = self._zeros()
            for i in range(self.n):
                col[i] = sum(1 for p in self.pods[i].values() if match(p))
            entry = [col, 0]
        entry[1] = self.version
        self._matches[match] = entry  # now the most recently asked
        if len(self._matches) > MATCH_KEYS:
            self._matches.popitem(last=False)
        return entry[0][:self.n]

    def domain_sums(self, key: str, per_node: np.ndarray, nodes: np.ndarray | None = None) -> np.ndarray:
        """`per_node` summed by value of label `key` over `nodes` (default: all), indexed as
        `label_codes(key)`; nodes without the label count nowhere."""
        codes, values = self.label_codes(key)
        if nodes is not None:
            codes, per_node = codes[nodes], per_node[nodes]
        has = codes >= 0
        return np.bincount(codes[has], weights=per_node[has], minlength=len(values)).astype(np.int64)

    def by_domain(self, key: str, per_domain: np.ndarray, nodes: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Each of `nodes`' entry in `per_domain` (indexed as `label_codes(key)`), and 0 (False) for a
        node without the label: its code, -1, picks the zero appended."""
        return np.append(per_domain, np.zeros(1, per_domain.dtype))[self.label_codes(key)[0][nodes]]

    def domains_of(self, key: str, nodes: np.ndarray) -> np.ndarray:
        """Which values of label `key` (as `label_codes(key)`) some of `nodes` have."""
        codes, values = self.label_codes(key)
        present = np.zeros(len(values), dtype=bool)
        node_codes = codes[nodes]
        present[node_codes[node_codes >= 0]] = True
        return present
