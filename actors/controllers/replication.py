"""The ReplicationController manager: the ReplicaSet controller's algorithm, events and status over
ReplicationControllers, as Kubernetes' replication controller wraps `replicaset.NewBaseController` —
here by showing it each RC with its plain-map selector as a LabelSelector (api/replication.py)."""
from __future__ import annotations

from actors.controllers.replicaset import ReplicaSetController
from api.replication import as_label_selector


def as_replica_set(rc: dict) -> dict:
    """The RC as the ReplicaSet controller reads it; kind and apiVersion stay the RC's (owner references)."""
    return {**rc, "spec": {**(rc.get("spec") or {}), "selector": as_label_selector(rc)}}


class ReplicationManager(ReplicaSetController):
    name = "controller.replication"
    kinds = ("replicationcontroller", "pod")
    owner_kind = "ReplicationController"

    def owner(self, ns: str, name: str) -> dict | None:
        rc = super().owner(ns, name)
        return None if rc is None else as_replica_set(rc)

    def owners(self, ns: str) -> list[dict]:
        return [as_replica_set(rc) for rc in super().owners(ns)]
