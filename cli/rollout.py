"""`kubus rollout status|undo` and `kubus scale`, as kubectl words them."""
from __future__ import annotations

from actors.controllers import rollout as util
from api.status import StatusError
from runtime.client import Client


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


def undo(client: Client, name: str, namespace: str, to_revision: int | None) -> str:
    d = client.get("Deployment", name, namespace)
    owned = [rs for rs in client.list("ReplicaSet", namespace).items
             if any(r.get("uid") == d["metadata"]["uid"] for r in rs["metadata"].get("ownerReferences") or [])]
    by_revision = sorted(owned, key=util.revision_of)
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
