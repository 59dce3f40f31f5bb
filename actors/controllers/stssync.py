"""A StatefulSet's sync as pure decisions (Kubernetes' stateful_set_control.go `updateStatefulSet`,
`computeReplicaStatus`, `completeRollingUpdate`): from the set, its pods, its namespace's claims and
its current and update revisions, which claims and pods are made, which pods go, which claims' owners
change and the status. OrderedReady makes one change at a time, lowest ordinal first up and highest
first down, and waits while a pod is not Running and Ready (available, with minReadySeconds); Parallel
does not wait. A rolling update deletes from the highest ordinal down to the partition, one pod whose
revision is not the update revision, and waits for its replacement."""
from __future__ import annotations

from dataclasses import dataclass, field

from actors.controllers.daemonsync import available
from actors.controllers.ranking import is_ready
from actors.controllers.stspods import (claim_name, claim_owners, new_claims, new_pod, ordinal_of, revision_of,
                                        template_of, wanted_ordinals)
from api.times import seconds


@dataclass
class Plan:
    status: dict
    create_claims: list[dict] = field(default_factory=list)
    create_pods: list[dict] = field(default_factory=list)
    delete_pods: list[dict] = field(default_factory=list)
    claim_owners: list[tuple[dict, list[dict]]] = field(default_factory=list)  # (claim, its new ownerReferences)
    requeue_after: float | None = None  # a Ready pod becomes available after minReadySeconds

    @property
    def writes(self) -> bool:
        return bool(self.create_claims or self.create_pods or self.delete_pods or self.claim_owners)


@dataclass
class Revisions:
    current: dict
    update: dict

    @property
    def current_name(self) -> str:
        return self.current["metadata"]["name"]

    @property
    def update_name(self) -> str:
        return self.update["metadata"]["name"]


def terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def running_ready(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and is_ready(pod)


def healthy(sts: dict, pod: dict, now: float) -> bool:
    """isRunningAndAvailable, not terminating."""
    return not terminating(pod) and running_ready(pod) and available(pod, sts["spec"].get("minReadySeconds", 0), now)


def compute_status(sts: dict, pods: list[dict], revisions: Revisions, now: float) -> dict:
    """computeReplicaStatus, then completeRollingUpdate."""
    min_ready = sts["spec"].get("minReadySeconds", 0)
    counts = {"replicas": 0, "readyReplicas": 0, "availableReplicas": 0, "currentReplicas": 0, "updatedReplicas": 0}
    for pod in pods:
        created = bool((pod.get("status") or {}).get("phase"))
        counts["replicas"] += created
        if running_ready(pod):
            counts["readyReplicas"] += 1
            counts["availableReplicas"] += available(pod, min_ready, now)
        if created and not terminating(pod):
            counts["currentReplicas"] += revision_of(pod) == revisions.current_name
            counts["updatedReplicas"] += revision_of(pod) == revisions.update_name
    status = {**(sts.get("status") or {}), **counts, "observedGeneration": sts["metadata"].get("generation", 1),
              "currentRevision": revisions.current_name, "updateRevision": revisions.update_name}
    if _rolling(sts) and counts["updatedReplicas"] == counts["replicas"] == counts["readyReplicas"]:
        status["currentReplicas"], status["currentRevision"] = counts["updatedReplicas"], revisions.update_name
    status.setdefault("collisionCount", 0)
    return status


def _rolling(sts: dict) -> bool:
    return (sts["spec"].get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def _partition(sts: dict) -> int:
    return ((sts["spec"].get("updateStrategy") or {}).get("rollingUpdate") or {}).get("partition") or 0


def _until_available(sts: dict, pods: list[dict], now: float) -> float | None:
    """Seconds until the next Ready pod counts available under minReadySeconds."""
    min_ready, waits = sts["spec"].get("minReadySeconds", 0), []
    for pod in pods:
        since = next((c.get("lastTransitionTime") for c in (pod.get("status") or {}).get("conditions") or []
                      if c.get("type") == "Ready"), None)
        if min_ready and running_ready(pod) and since and seconds(since) + min_ready > now:
            waits.append(seconds(since) + min_ready - now)
    return min(waits) if waits else None


def sync(sts: dict, pods: list[dict], claims: dict[str, dict], revisions: Revisions, now: float) -> Plan:
    """One pass of updateStatefulSet over the set's own pods and the namespace's claims by name."""
    by_ordinal = {o: p for p in pods if (o := ordinal_of(sts, p)) is not None}
    wanted = wanted_ordinals(sts)
    plan = Plan(compute_status(sts, list(by_ordinal.values()), revisions, now))
    plan.requeue_after = _until_available(sts, list(by_ordinal.values()), now)
    for ordinal in sorted(set(wanted) | set(by_ordinal)):
        for template in sts["spec"].get("volumeClaimTemplates") or []:
            claim = claims.get(claim_name(sts, template, ordinal))
            owners = claim_owners(sts, claim, ordinal, by_ordinal.get(ordinal)) if claim else None
            if owners is not None:
                plan.claim_owners.append((claim, owners))
    condemned = sorted((o for o in by_ordinal if o not in wanted), reverse=True)
    if _replicas(sts, by_ordinal, wanted, claims, revisions, now, plan) or plan.writes and condemned:
        return plan  # condemned claims' owners are written before their pods go
    if _condemned(sts, by_ordinal, wanted, condemned, now, plan):
        return plan
    if _rolling(sts):
        _roll(sts, by_ordinal, wanted, revisions, now, plan)
    return plan


def _replicas(sts: dict, by_ordinal: dict[int, dict], wanted: range, claims: dict[str, dict],
              revisions: Revisions, now: float, plan: Plan) -> bool:
    """The wanted ordinals, lowest first: missing claims and pods made, finished pods deleted. True when
    OrderedReady must wait (a change made, a pod not yet healthy)."""
    ordered = sts["spec"].get("podManagementPolicy", "OrderedReady") != "Parallel"
    partition = _partition(sts) if _rolling(sts) else 0
    for ordinal in wanted:
        pod = by_ordinal.get(ordinal)
        plan.create_claims += [c for c in new_claims(sts, ordinal) if c["metadata"]["name"] not in claims]
        if pod is None:
            revision = revisions.current if ordinal < partition else revisions.update
            plan.create_pods.append(new_pod(sts, template_of(revision), revision["metadata"]["name"], ordinal))
        elif finished(pod) and not terminating(pod):
            plan.delete_pods.append(pod)
        elif healthy(sts, pod, now):
            continue
        if ordered:
            return True
    return False


def _condemned(sts: dict, by_ordinal: dict[int, dict], wanted: range, condemned: list[int], now: float,
               plan: Plan) -> bool:
    """Ordinals scaled away, highest first; OrderedReady one at a time and only while every other pod
    is healthy. True when anything was deleted or is being waited for."""
    ordered = sts["spec"].get("podManagementPolicy", "OrderedReady") != "Parallel"
    unhealthy = [o for o in sorted(by_ordinal) if not healthy(sts, by_ordinal[o], now)]
    for ordinal in condemned:
        pod = by_ordinal[ordinal]
        if terminating(pod):
            if ordered:
                return True
            continue
        if ordered and unhealthy and unhealthy[0] != ordinal:
            return True
        plan.delete_pods.append(pod)
        if ordered:
            return True
    return bool(condemned)


def _roll(sts: dict, by_ordinal: dict[int, dict], wanted: range, revisions: Revisions, now: float,
          plan: Plan) -> None:
    """From the highest wanted ordinal down to the partition: delete the first pod of another revision,
    or wait for one that is not healthy."""
    for ordinal in reversed(wanted):
        if ordinal < _partition(sts):
            return
        pod = by_ordinal.get(ordinal)
        if pod is None:
            return
        if revision_of(pod) != revisions.update_name and not terminating(pod):
            plan.delete_pods.append(pod)
            return
        if not healthy(sts, pod, now):
            return
