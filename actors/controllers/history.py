"""A workload's history in ControllerRevisions, shared by the DaemonSet and StatefulSet controllers
(Kubernetes' daemon_controller.go `constructHistory`/`snapshot`/`cleanupHistory` and
stateful_set_control.go `getStatefulSetRevisions`/`truncateHistory`): each revision holds the patch that
restores its template (`getPatch`), is named `<owner>-<hash>` and labelled `controller-revision-hash`;
the revision matching today's template is the current one and, when it is not the newest (a
rollback), takes the next number. `Recorder` is the controllers' half: the revision written, a
collision counted."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from actors.controllers import rollout
from actors.controllers.claims import controller_ref
from api.status import StatusError

HASH_LABEL = "controller-revision-hash"


def patch_of(owner: dict) -> dict:
    """getPatch: `{"spec": {"template": <template>, with "$patch": "replace"}}`."""
    return {"spec": {"template": {**copy.deepcopy(owner["spec"]["template"]), "$patch": "replace"}}}


def matches(owner: dict, revision: dict) -> bool:
    """Match: the revision restores exactly the owner's template."""
    return (revision.get("data") or {}) == patch_of(owner)


def template_hash(owner: dict) -> str:
    """controller.ComputeHash of the template and the collision count."""
    return rollout.template_hash(owner["spec"]["template"], (owner.get("status") or {}).get("collisionCount"))


def snapshot(owner: dict, revision: int) -> dict:
    meta, hash_ = owner["metadata"], template_hash(owner)
    labels = {**((owner["spec"]["template"].get("metadata") or {}).get("labels") or {}), HASH_LABEL: hash_}
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": f"{meta['name']}-{hash_}", "namespace": meta["namespace"], "labels": labels,
                         **({"annotations": dict(meta["annotations"])} if meta.get("annotations") else {}),
                         "ownerReferences": [controller_ref(owner)]},
            "data": patch_of(owner), "revision": revision}


def hash_of(obj: dict | None) -> str | None:
    return (obj["metadata"].get("labels") or {}).get(HASH_LABEL) if obj else None


@dataclass
class History:
    current: dict | None  # the revision of today's template, once it exists
    old: list[dict] = field(default_factory=list)
    create: dict | None = None  # the snapshot to create
    renumber: int | None = None  # the current revision's new number (a rollback)
    duplicates: list[dict] = field(default_factory=list)  # other revisions of today's template

    @property
    def hash(self) -> str | None:
        return hash_of(self.current)

    @property
    def pending(self) -> bool:
        return self.create is not None or self.renumber is not None


def construct(owner: dict, revisions: list[dict]) -> History:
    """constructHistory over the owner's own revisions."""
    current = sorted((r for r in revisions if matches(owner, r)), key=lambda r: r.get("revision", 0), reverse=True)
    old = [r for r in revisions if not matches(owner, r)]
    next_revision = max((r.get("revision", 0) for r in old), default=0) + 1
    if not current:
        return History(None, old, create=snapshot(owner, next_revision))
    cur = current[0]
    renumber = next_revision if cur.get("revision", 0) < next_revision else None
    return History(cur, old, renumber=renumber, duplicates=current[1:])


def to_clean(owner: dict, old: list[dict], live_hashes: set[str]) -> list[dict]:
    """cleanupHistory: old revisions beyond revisionHistoryLimit, oldest first, none a live pod uses."""
    kill = len(old) - owner["spec"].get("revisionHistoryLimit", 10)
    out = []
    for revision in sorted(old, key=lambda r: r.get("revision", 0)):
        if kill <= 0:
            break
        if hash_of(revision) in live_hashes:
            continue
        out.append(revision)
        kill -= 1
    return out


class Recorder:
    """The current revision created (a name taken by another template counts a collision in the
    owner's status), or renumbered as the newest after a rollback; the owner's sync goes on when the
    change comes back. A Controller mixin: `recording` holds the keys whose write is in flight."""
    recording: set[str]

    def record_history(self, key: str, owner: dict, history: History) -> None:
        def done(result) -> None:
            self.recording.discard(key)
            if isinstance(result, StatusError) and result.reason == "AlreadyExists" and history.create:
                self._already_there(key, owner, history.create)
            elif isinstance(result, StatusError):
                self.retry(key)
            else:
                self.queue.add(key)
                self.kick()

        self.recording.add(key)
        if history.create is not None:
            self.write({"verb": "create", "kind": "ControllerRevision", "namespace": owner["metadata"]["namespace"],
                        "object": history.create}, done)
            return
        cur = history.current
        self.write({"verb": "update", "kind": "ControllerRevision", "namespace": cur["metadata"]["namespace"],
                    "name": cur["metadata"]["name"], "resourceVersion": cur["metadata"]["resourceVersion"],
                    "object": {**cur, "revision": history.renumber}}, done)

    def _already_there(self, key: str, owner: dict, made: dict) -> None:
        """The revision's name is taken: by this template (made before, not seen yet: go on) or by
        another one (a hash collision: count it, the next hash differs)."""
        def got(result) -> None:
            if isinstance(result, StatusError):
                self.retry(key)
            elif matches(owner, result):
                self.queue.add(key)
                self.kick()
            else:
                self._collided(key, owner)

        meta = made["metadata"]
        self.write({"verb": "get", "kind": "ControllerRevision", "namespace": meta["namespace"], "name": meta["name"]},
                   got)

    def _collided(self, key: str, owner: dict) -> None:
        status = owner.get("status") or {}
        self.write({"verb": "updateStatus", "kind": owner["kind"], "namespace": owner["metadata"]["namespace"],
                    "name": owner["metadata"]["name"], "resourceVersion": owner["metadata"]["resourceVersion"],
                    "object": {**owner, "status": {**status, "collisionCount": status.get("collisionCount", 0) + 1}}},
                   lambda r: self.retry(key) if isinstance(r, StatusError) else None)
