"""The scheduling queue: activeQ ordered by priority then arrival, backoffQ (1 s doubling to 10 s),
and unschedulable pods that wait for a cluster change that could help them, or 5 minutes."""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Callable

from actors.scheduler.podinfo import PodInfo

UNSCHEDULABLE_TIMEOUT_S = 300.0


@dataclass
class QueuedPod:
    info: PodInfo
    timestamp: float  # when it (re)entered the queue: ties in priority go to the earlier one
    attempts: int = 0
    unschedulable_count: int = 0
    error_count: int = 0
    last_error: bool = False
    attempted_at: float = 0.0
    where: str = "new"  # new | active | backoff | unschedulable | flight | gone

    @property
    def key(self) -> str:
        return self.info.key


class SchedulingQueue:
    def __init__(self, clock: Callable[[], float], initial_backoff: float = 1.0, max_backoff: float = 10.0):
        self.clock = clock
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.pods: dict[str, QueuedPod] = {}
        self._active: list[tuple[int, float, int, str]] = []
        self._backoff: list[tuple[float, int, str]] = []
        self._unschedulable: dict[str, QueuedPod] = {}
        self._sweep_at = float("inf")  # no unschedulable pod times out before this
        self._active_count = 0
        self._seq = itertools.count()

    def __len__(self) -> int:
        """Pods waiting in activeQ."""
        return self._active_count

    # ---- arrivals ------------------------------------------------------------------------------
    def add(self, info: PodInfo) -> None:
        """A new pending pod, or a newer revision of one we hold."""
        qp = self.pods.get(info.key)
        if qp is None:
            self.pods[info.key] = qp = QueuedPod(info, self.clock())
            self._push_active(qp)
            return
        changed = qp.info.pod.get("spec") != info.pod.get("spec") or qp.info.labels != info.labels
        qp.info = info
        if qp.where == "unschedulable" and changed:  # an update may have made it schedulable
            self._requeue(qp)

    def delete(self, key: str) -> None:
        qp = self.pods.pop(key, None)
        if qp is not None:
            if qp.where == "active":
                self._active_count -= 1
            qp.where = "gone"  # heap entries are skipped lazily
            self._unschedulable.pop(key, None)

    # ---- the cycle -----------------------------------------------------------------------------
    def pop(self) -> QueuedPod | None:
        self.flush()
        while self._active:
            _prio, _ts, _seq, key = heapq.heappop(self._active)
            qp = self.pods.get(key)
            if qp is not None and qp.where == "active" and self.pods.get(key) is qp:
                self._active_count -= 1
                qp.where = "flight"
                qp.attempts += 1
                qp.attempted_at = self.clock()
                return qp
        return None

    def unschedulable(self, qp: QueuedPod) -> None:
        """No node fits: wait for a cluster change (or the 5-minute sweep)."""
        if self.pods.get(qp.key) is not qp:
            return
        qp.unschedulable_count += 1
        qp.last_error = False
        qp.where = "unschedulable"
        qp.timestamp = self.clock()
        self._unschedulable[qp.key] = qp
        self._sweep_at = min(self._sweep_at, qp.timestamp + UNSCHEDULABLE_TIMEOUT_S)

    def error(self, qp: QueuedPod) -> None:
        """The attempt failed (a bind conflict, a timeout): back off and retry."""
        if self.pods.get(qp.key) is not qp:
            return
        qp.error_count += 1
        qp.last_error = True
        self._push_backoff(qp)

    def done(self, qp: QueuedPod) -> None:
        """Bound: it leaves the queue."""
        if self.pods.get(qp.key) is qp:
            del self.pods[qp.key]

    def cluster_changed(self) -> int:
        """A node was added or changed, or a pod went away: every unschedulable pod tries again
        after its backoff. Returns how many moved."""
        moved = list(self._unschedulable.values())
        for qp in moved:
            self._requeue(qp)
        return len(moved)

    # ---- time ----------------------------------------------------------------------------------
    def backoff_duration(self, qp: QueuedPod) -> float:
        count = qp.error_count if qp.last_error else qp.unschedulable_count
        if count == 0 or self.max_backoff == 0:
            return 0.0
        return min(self.initial_backoff * (2 ** (count - 1)), self.max_backoff)

    def flush(self) -> None:
        """Backoff-completed pods to activeQ; pods unschedulable for 5 minutes back in play."""
        now = self.clock()
        while self._backoff and self._backoff[0][0] <= now:
            _exp, _seq, key = heapq.heappop(self._backoff)
            qp = self.pods.get(key)
            if qp is not None and qp.where == "backoff":
                self._push_active(qp)
        if now >= self._sweep_at:
            for qp in [q for q in self._unschedulable.values() if now - q.timestamp >= UNSCHEDULABLE_TIMEOUT_S]:
                self._requeue(qp)
            self._sweep_at = min((q.timestamp for q in self._unschedulable.values()), default=float("inf")) + \
                UNSCHEDULABLE_TIMEOUT_S

    def next_wakeup(self) -> float | None:
        """Seconds until something moves by itself."""
        now = self.clock()
        times = [self._backoff[0][0] - now] if self._backoff else []
        times += [qp.timestamp + UNSCHEDULABLE_TIMEOUT_S - now for qp in self._unschedulable.values()]
        return max(0.0, min(times)) if times else None

    def _requeue(self, qp: QueuedPod) -> None:
        self._unschedulable.pop(qp.key, None)
        if self.clock() < qp.attempted_at + self.backoff_duration(qp):
            self._push_backoff(qp)
        else:
            self._push_active(qp)

    def _push_active(self, qp: QueuedPod) -> None:
        if qp.where != "active":
            self._active_count += 1
        qp.where = "active"
        heapq.heappush(self._active, (-qp.info.priority, qp.timestamp, next(self._seq), qp.key))

    def _push_backoff(self, qp: QueuedPod) -> None:
        qp.where = "backoff"
        expiry = qp.attempted_at + self.backoff_duration(qp)
        heapq.heappush(self._backoff, (expiry, next(self._seq), qp.key))
