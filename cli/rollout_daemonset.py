"""`kubus rollout status|history|undo daemonset/NAME` (and history|undo of statefulset/NAME), as
kubectl's DaemonSet status viewer and its history viewer and rollbacker of both word them: the history
is the workload's ControllerRevisions, and an undo applies the chosen revision's patch."""
from __future__ import annotations

from actors.controllers.history import matches
from api.printers.columns import table
from api.status import StatusError
from cli.rollout import CHANGE_CAUSE
from runtime.client import Client


def status_line(ds: dict) -> tuple[str, bool]:
    """(message, done) of kubectl's DaemonSetStatusViewer."""
    name, status = ds["metadata"]["name"], ds.get("status") or {}
    if (ds["spec"].get("updateStrategy") or {}).get("type", "RollingUpdate") != "RollingUpdate":
        raise StatusError("BadRequest", "rollout status is only available for RollingUpdate strategy type")
    if ds["metadata"].get("generation", 1) > status.get("observedGeneration", 0):
        return "Waiting for daemon set spec update to be observed...", False
    desired, updated = status.get("desiredNumberScheduled", 0), status.get("updatedNumberScheduled", 0)
    if updated < desired:
        return f'Waiting for daemon set "{name}" rollout to finish: {updated} out of {desired} new pods have been ' \
               f'updated...', False
    available = status.get("numberAvailable", 0)
    if available < desired:
        return f'Waiting for daemon set "{name}" rollout to finish: {available} of {desired} updated pods are ' \
               f'available...', False
    return f'daemon set "{name}" successfully rolled out', True


def _revisions(client: Client, ds: dict) -> list[dict]:
    """The ControllerRevisions the workload controls, oldest first."""
    uid = ds["metadata"]["uid"]
    owned = [r for r in client.list("ControllerRevision", ds["metadata"]["namespace"]).items
             if any(o.get("uid") == uid and o.get("controller") for o in r["metadata"].get("ownerReferences") or [])]
    return sorted(owned, key=lambda r: r.get("revision", 0))


def history(client: Client, name: str, namespace: str, kind: str = "DaemonSet") -> str:
    revisions = _revisions(client, client.get(kind, name, namespace))
    rows = [["REVISION", "CHANGE-CAUSE"]] + [
        [str(r.get("revision", 0)), (r["metadata"].get("annotations") or {}).get(CHANGE_CAUSE) or "<none>"]
        for r in revisions]
    return f"{kind.lower()}.apps/{name}\n{table(rows)}"


def undo(client: Client, name: str, namespace: str, to_revision: int | None, kind: str = "DaemonSet") -> str:
    """kubectl's DaemonSetRollbacker (and StatefulSetRollbacker): the previous revision (or --to-revision)
    patched back."""
    ds = client.get(kind, name, namespace)
    revisions = _revisions(client, ds)
    if to_revision:
        target = next((r for r in revisions if r.get("revision") == to_revision), None)
        if target is None:
            raise StatusError("NotFound", f"unable to find specified revision {to_revision} in history")
    elif len(revisions) < 2:
        raise StatusError("BadRequest", "no last revision to roll back to")
    else:
        target = revisions[-2]
    if matches(ds, target):
        return f"{kind.lower()}.apps/{name} skipped rollback (current template already matches revision " \
               f"{target.get('revision')})"
    client.patch(kind, name, target["data"], namespace)
    return f"{kind.lower()}.apps/{name} rolled back"


def statefulset_status_line(sts: dict) -> tuple[str, bool]:
    """(message, done) of kubectl's StatefulSetStatusViewer."""
    spec, status = sts["spec"], sts.get("status") or {}
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        raise StatusError("BadRequest", "rollout status is only available for RollingUpdate strategy type")
    if not status.get("observedGeneration") or sts["metadata"].get("generation", 1) > status["observedGeneration"]:
        return "Waiting for statefulset spec update to be observed...", False
    replicas = spec.get("replicas", 1)
    if status.get("readyReplicas", 0) < replicas:
        return f"Waiting for {replicas - status.get('readyReplicas', 0)} pods to be ready...", False
    partition = (strategy.get("rollingUpdate") or {}).get("partition")
    if partition is not None:
        if status.get("updatedReplicas", 0) < replicas - partition:
            return f"Waiting for partitioned roll out to finish: {status.get('updatedReplicas', 0)} out of " \
                   f"{replicas - partition} new pods have been updated...", False
        return f"partitioned roll out complete: {status.get('updatedReplicas', 0)} new pods have been updated...", True
    if status.get("updateRevision") != status.get("currentRevision"):
        return f"waiting for statefulset rolling update to complete {status.get('updatedReplicas', 0)} pods at " \
               f"revision {status.get('updateRevision')}...", False
    return f"statefulset rolling update complete {status.get('currentReplicas', 0)} pods at revision " \
           f"{status.get('currentRevision')}...", True
