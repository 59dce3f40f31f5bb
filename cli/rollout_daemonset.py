"""`kubus rollout status|history|undo daemonset/NAME`, as kubectl's DaemonSet status viewer, history
viewer and rollbacker word them: the history is the DaemonSet's ControllerRevisions, and an undo
applies the chosen revision's patch."""
from __future__ import annotations

from actors.controllers import history
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
    """The ControllerRevisions the DaemonSet controls, oldest first."""
    uid = ds["metadata"]["uid"]
    owned = [r for r in client.list("ControllerRevision", ds["metadata"]["namespace"]).items
             if any(o.get("uid") == uid and o.get("controller") for o in r["metadata"].get("ownerReferences") or [])]
    return sorted(owned, key=lambda r: r.get("revision", 0))


def history(client: Client, name: str, namespace: str) -> str:
    revisions = _revisions(client, client.get("DaemonSet", name, namespace))
    rows = [["REVISION", "CHANGE-CAUSE"]] + [
        [str(r.get("revision", 0)), (r["metadata"].get("annotations") or {}).get(CHANGE_CAUSE) or "<none>"]
        for r in revisions]
    return f"daemonset.apps/{name}\n{table(rows)}"


def undo(client: Client, name: str, namespace: str, to_revision: int | None) -> str:
    """kubectl's DaemonSetRollbacker: the previous revision (or --to-revision) patched back."""
    ds = client.get("DaemonSet", name, namespace)
    revisions = _revisions(client, ds)
    if to_revision:
        target = next((r for r in revisions if r.get("revision") == to_revision), None)
        if target is None:
            raise StatusError("NotFound", f"unable to find specified revision {to_revision} in history")
    elif len(revisions) < 2:
        raise StatusError("BadRequest", "no last revision to roll back to")
    else:
        target = revisions[-2]
    if history.matches(ds, target):
        return f"daemonset.apps/{name} skipped rollback (current template already matches revision " \
               f"{target.get('revision')})"
    client.patch("DaemonSet", name, target["data"], namespace)
    return f"daemonset.apps/{name} rolled back"
