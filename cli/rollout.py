"""`kubus rollout status|undo|history|restart|pause|resume`, as kubectl words them."""
from __future__ import annotations

import time

from actors.controllers import rollout as util
from api.printers.columns import table
from api.status import StatusError
from api.times import rfc3339
from runtime.client import Client

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
CHANGE_CAUSE = "kubernetes.io/change-cause"


def status_line(d: dict) -> tuple[str, bool]:
    """(message, done) for one revision of a Deployment; raises StatusError past its deadline."""
    name, spec, status = d["metadata"]["name"], d["spec"], d.get("status") or {}
    if status.get("observedGeneration", 0) < d["metadata"].get("generation", 1):
        return "Waiting for deployment spec update to be observed...", False
    progressing = next((c for c in status.get("conditions") or [] if c["type"] == "Progressing"), {})
    if progressing.get("reason") == "ProgressDeadlineExceeded":
        raise StatusError("Timeout", f'deployment "{name}" exceeded its progress deadline')
    replicas, updated = spec.get("replicas", 1), status.get("updatedReplicas", 0)
    if updated < replicas:
        return f'Waiting for deployment "{name}" rollout to finish: {updated} out of {replicas} new replicas have ' \
               f'been updated...', False
    if status.get("replicas", 0) > updated:
        return f'Waiting for deployment "{name}" rollout to finish: {status["replicas"] - updated} old replicas are ' \
               f'pending termination...', False
    if status.get("availableReplicas", 0) < updated:
        return f'Waiting for deployment "{name}" rollout to finish: {status.get("availableReplicas", 0)} of ' \
               f'{updated} updated replicas are available...', False
    return f'deployment "{name}" successfully rolled out', True


def _history(client: Client, d: dict) -> list[dict]:
    """The Deployment's ReplicaSets, oldest revision first."""
    owned = [rs for rs in client.list("ReplicaSet", d["metadata"]["namespace"]).items
             if any(r.get("uid") == d["metadata"]["uid"] for r in rs["metadata"].get("ownerReferences") or [])]
    return sorted(owned, key=util.revision_of)


def history(client: Client, name: str, namespace: str) -> str:
    d = client.get("Deployment", name, namespace)
    rows = [["REVISION", "CHANGE-CAUSE"]] + [
        [str(util.revision_of(rs)), (rs["metadata"].get("annotations") or {}).get(CHANGE_CAUSE) or "<none>"]
        for rs in _history(client, d)]
    return f"deployment.apps/{name}\n{table(rows)}"


def restart(client: Client, name: str, namespace: str) -> str:
    """A new template annotation: the Deployment rolls every pod, as `kubectl rollout restart` does."""
    client.patch("Deployment", name, {"spec": {"template": {"metadata": {"annotations": {
        RESTARTED_AT: rfc3339(time.time())}}}}}, namespace)
    return f"deployment.apps/{name} restarted"


def pause(client: Client, name: str, namespace: str, paused: bool) -> str:
    word = "paused" if paused else "resumed"
    d = client.get("Deployment", name, namespace)
    if bool(d["spec"].get("paused")) == paused:
        return f"deployment.apps/{name} already {word}"
    client.patch("Deployment", name, {"spec": {"paused": paused or None}}, namespace)
    return f"deployment.apps/{name} {word}"


def undo(client: Client, name: str, namespace: str, to_revision: int | None) -> str:
    d = client.get("Deployment", name, namespace)
    by_revision = _history(client, d)
    if to_revision:
        target = next((rs for rs in by_revision if util.revision_of(rs) == to_revision), None)
        if target is None:
            raise StatusError("NotFound", f"unable to find specified revision {to_revision} in history")
    else:
        current = util.without_hash(d["spec"]["template"])
        older = [rs for rs in by_revision if util.without_hash(rs["spec"]["template"]) != current]
        if not older:
            raise StatusError("BadRequest", "no rollout history found for deployment " + f'"{name}"')
        target = older[-1]
    template = util.without_hash(target["spec"]["template"])
    if template == util.without_hash(d["spec"]["template"]):
        return f"deployment.apps/{name} skipped rollback (current template already matches revision " \
               f"{util.revision_of(target)})"
    client.patch("Deployment", name, {"spec": {"template": template}}, namespace)
    return f"deployment.apps/{name} rolled back"
