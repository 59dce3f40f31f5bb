"""A DaemonSet's sync as pure decisions (Kubernetes' daemon_controller.go `manage`/`podsShouldBeOnNode`,
update.go `rollingUpdate`, `updateDaemonSetStatus`): from the nodes, the DaemonSet's pods by target
node and the current revision's hash, which nodes get a pod, which pods go and the status."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from actors.controllers.daemonnodes import HASH_LABEL, target_node

Placement = dict[str, tuple[bool, bool]]  # node -> (should run, should continue running)
from actors.controllers.ranking import is_ready
from api.apps_validation import int_or_percent
from api.times import seconds

FAILED_DAEMON_POD = "FailedDaemonPod"


@dataclass
class Plan:
    create: list[str] = field(default_factory=list)  # node names
    delete: list[dict] = field(default_factory=list)  # pods
    failed: list[str] = field(default_factory=list)  # nodes whose failed pod is deleted (back-off grows)
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)
    requeue_after: float | None = None  # a pod becomes available after minReadySeconds

    @property
    def writes(self) -> bool:
        return bool(self.create or self.delete)


def by_node(pods: list[dict]) -> dict[str, list[dict]]:
    """getNodesToDaemonPods: pods by the node they are bound or headed to (deleted terminal pods left out)."""
    out: dict[str, list[dict]] = {}
    for pod in pods:
        node = target_node(pod)
        terminal = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        if node is not None and not (terminal and pod["metadata"].get("deletionTimestamp")):
            out.setdefault(node, []).append(pod)
    return out


def oldest_first(pods: list[dict]) -> list[dict]:
    """podByCreationTimestampAndPhase: bound pods first, then by creation time and name."""
    return sorted(pods, key=lambda p: (not p["spec"].get("nodeName"), p["metadata"].get("creationTimestamp") or "",
                                       p["metadata"]["name"]))


def available(pod: dict, min_ready: int, now: float) -> bool:
    """IsPodAvailable: Ready for at least minReadySeconds."""
    if not is_ready(pod):
        return False
    if not min_ready:
        return True
    since = next((c.get("lastTransitionTime") for c in pod["status"]["conditions"] if c.get("type") == "Ready"), None)
    return since is not None and seconds(since) + min_ready <= now


def _rolling(ds: dict) -> dict:
    strategy = ds["spec"].get("updateStrategy") or {}
    return (strategy.get("rollingUpdate") or {}) if strategy.get("type", "RollingUpdate") == "RollingUpdate" else {}


def scaled(value, total: int) -> int:
    """GetScaledValueFromIntOrPercent rounding up."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int_or_percent(value) * total / 100)
    return int(value or 0)


def fenceposts(ds: dict, desired: int) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) of updatedDesiredNodeCounts; never both 0."""
    rolling = _rolling(ds)
    surge, unavailable = scaled(rolling.get("maxSurge"), desired), scaled(rolling.get("maxUnavailable"), desired)
    return surge, (1 if desired > 0 and surge == 0 and unavailable == 0 else unavailable)


def _running_on(node: str, pods: list[dict], plan: Plan,
                in_backoff: Callable[[str], bool]) -> list[dict]:
    """The node's live daemon pods; failed ones deleted (unless backing off), succeeded ones too."""
    running = []
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        phase = (pod.get("status") or {}).get("phase")
        if phase == "Failed":
            if in_backoff(node):
                plan.requeue_after = min(plan.requeue_after or 1.0, 1.0)
                continue
            meta = pod["metadata"]
            plan.events.append(("Warning", FAILED_DAEMON_POD, f"Found failed daemon pod {meta['namespace']}/"
                                                              f"{meta['name']} on node {node}, will try to kill it"))
            plan.delete.append(pod)
            plan.failed.append(node)
        elif phase == "Succeeded":
            plan.delete.append(pod)
        else:
            running.append(pod)
    return running


def _surplus(ds: dict, running: list[dict], hash_: str, now: float, surge: bool) -> list[dict]:
    """More than one live pod on a node: without surge all but the oldest go; with surge the oldest new
    and the oldest old may both stay until the new one is available (or the old one not ready)."""
    ordered = oldest_first(running)
    if not surge:
        return ordered[1:]
    new = [p for p in ordered if (p["metadata"].get("labels") or {}).get(HASH_LABEL) == hash_]
    old = [p for p in ordered if p not in new]
    out = new[1:] + old[1:]
    if new and old and (not is_ready(old[0]) or available(new[0], ds["spec"].get("minReadySeconds", 0), now)):
        out.append(old[0])
    return out


def manage(ds: dict, places: Placement, pods: dict[str, list[dict]], hash_: str, now: float,
           in_backoff: Callable[[str], bool] = lambda node: False) -> Plan:
    """podsShouldBeOnNode over every node: create where missing, delete where unwanted."""
    plan = Plan()
    surge = fenceposts(ds, 1)[0] > 0
    for name, (run, keep) in places.items():
        mine = pods.get(name, [])
        if run and not mine:
            plan.create.append(name)
        elif keep:
            running = _running_on(name, mine, plan, in_backoff)
            plan.delete += _surplus(ds, running, hash_, now, surge)
            if surge and run and not running:  # surging: the node needs one pod not being deleted
                plan.create.append(name)
        elif mine:
            plan.delete += [p for p in mine if not p["metadata"].get("deletionTimestamp")]
    for name, mine in pods.items():  # pods headed to nodes that no longer exist
        if name not in places:
            plan.delete += [p for p in mine if not p["metadata"].get("deletionTimestamp")]
    return plan


def _updated_and_old(pods: list[dict], hash_: str) -> tuple[dict | None, dict | None, bool]:
    """findUpdatedPodsOnNode: the node's new and old pod; False when it has more than one of either."""
    new = old = None
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        if (pod["metadata"].get("labels") or {}).get(HASH_LABEL) == hash_:
            if new is not None:
                return None, None, False
            new = pod
        else:
            if old is not None:
                return None, None, False
            old = pod
    return new, old, True


def rolling_update(ds: dict, places: Placement, pods: dict[str, list[dict]], hash_: str, now: float) -> Plan:
    """rollingUpdate: without surge, delete old pods on up to maxUnavailable nodes (unavailable old pods
    at once); with surge, start new pods beside old ones on up to maxSurge nodes and delete an old pod
    once its new one is available."""
    wanted = {name for name, (run, _) in places.items() if run}
    surge, unavailable = fenceposts(ds, len(wanted))
    min_ready = ds["spec"].get("minReadySeconds", 0)
    considered = {**{name: [] for name in wanted}, **pods}
    plan, busy, allowed, candidates = Plan(), 0, [], []
    for name, mine in sorted(considered.items()):
        new, old, ok = _updated_and_old(mine, hash_)
        if not ok:
            busy += 1
        elif surge == 0:
            if (old is None) == (new is None) or (new is not None and not available(new, min_ready, now)):
                busy += 1
            elif old is not None and new is None:
                if not available(old, min_ready, now):
                    allowed.append(old)
                elif busy < unavailable:
                    candidates.append(old)
        elif old is not None and new is None:
            if not available(old, min_ready, now):
                allowed.append(name)
            elif busy < surge:
                candidates.append(name)
        elif old is not None and new is not None:
            if available(new, min_ready, now):
                plan.delete.append(old)
            else:
                busy += 1
    room = max(0, min((unavailable if surge == 0 else surge) - busy, len(candidates)))
    if surge == 0:
        plan.delete += allowed + candidates[:room]
    else:
        plan.create += allowed + candidates[:room]
    return plan


def status(ds: dict, places: Placement, pods: dict[str, list[dict]], hash_: str | None, now: float) -> dict:
    """updateDaemonSetStatus's counts."""
    min_ready = ds["spec"].get("minReadySeconds", 0)
    counts = dict.fromkeys(("desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled", "numberReady",
                            "updatedNumberScheduled", "numberAvailable"), 0)
    for name, (run, _) in places.items():
        mine = pods.get(name) or []
        if not run:
            counts["numberMisscheduled"] += bool(mine)
            continue
        counts["desiredNumberScheduled"] += 1
        if not mine:
            continue
        counts["currentNumberScheduled"] += 1
        pod = oldest_first(mine)[0]
        if is_ready(pod):
            counts["numberReady"] += 1
            counts["numberAvailable"] += available(pod, min_ready, now)
        counts["updatedNumberScheduled"] += (pod["metadata"].get("labels") or {}).get(HASH_LABEL) == hash_
    out = {**counts, "numberUnavailable": counts["desiredNumberScheduled"] - counts["numberAvailable"],
           "observedGeneration": ds["metadata"].get("generation", 1)}
    before = ds.get("status") or {}
    for kept in ("collisionCount", "conditions"):
        if before.get(kept) is not None:
            out[kept] = before[kept]
    return out


def sync(ds: dict, places: Placement, grouped: dict[str, list[dict]], hash_: str, now: float,
         in_backoff: Callable[[str], bool] = lambda node: False) -> Plan:
    """manage, then (when manage had nothing to write) the rolling update, over the pods `by_node`."""
    plan = manage(ds, places, grouped, hash_, now, in_backoff)
    strategy = (ds["spec"].get("updateStrategy") or {}).get("type", "RollingUpdate")
    if not plan.writes and strategy == "RollingUpdate":
        rolled = rolling_update(ds, places, grouped, hash_, now)
        plan.create, plan.delete = rolled.create, rolled.delete
    min_ready = ds["spec"].get("minReadySeconds")
    if min_ready and any(is_ready(p) and not available(p, min_ready, now) for pods in grouped.values() for p in pods):
        plan.requeue_after = min(plan.requeue_after or math.inf, float(min_ready))
    return plan
