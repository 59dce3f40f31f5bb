"""A DaemonSet's history in ControllerRevisions (daemon_controller.go `constructHistory`, `snapshot`,
`cleanupHistory`): each revision holds the patch that restores its template (`getPatch`), is named
`<ds>-<hash>` and labelled `controller-revision-hash`; the revision matching today's template is the
current one and, when it is not the newest (a rollback), takes the next number."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from actors.controllers import rollout
from actors.controllers.claims import controller_ref
from actors.controllers.daemonnodes import HASH_LABEL


def patch_of(ds: dict) -> dict:
    """getPatch: `{"spec": {"template": <template>, with "$patch": "replace"}}`."""
    return {"spec": {"template": {**copy.deepcopy(ds["spec"]["template"]), "$patch": "replace"}}}


def matches(ds: dict, revision: dict) -> bool:
    """Match: the revision restores exactly the DaemonSet's template."""
    return (revision.get("data") or {}) == patch_of(ds)


def template_hash(ds: dict) -> str:
    """controller.ComputeHash of the template and the collision count."""
    return rollout.template_hash(ds["spec"]["template"], (ds.get("status") or {}).get("collisionCount"))


def snapshot(ds: dict, revision: int) -> dict:
    meta, hash_ = ds["metadata"], template_hash(ds)
    labels = {**((ds["spec"]["template"].get("metadata") or {}).get("labels") or {}), HASH_LABEL: hash_}
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": f"{meta['name']}-{hash_}", "namespace": meta["namespace"], "labels": labels,
                         **({"annotations": dict(meta["annotations"])} if meta.get("annotations") else {}),
                         "ownerReferences": [controller_ref(ds)]},
            "data": patch_of(ds), "revision": revision}


@dataclass
class History:
    current: dict | None  # the revision of today's template, once it exists
    old: list[dict] = field(default_factory=list)
    create: dict | None = None  # the snapshot to create
    renumber: int | None = None  # the current revision's new number (a rollback)
    duplicates: list[dict] = field(default_factory=list)  # other revisions of today's template

    @property
    def hash(self) -> str | None:
        return (self.current["metadata"].get("labels") or {}).get(HASH_LABEL) if self.current else None


def construct(ds: dict, revisions: list[dict]) -> History:
    """constructHistory over the DaemonSet's own revisions."""
    current = sorted((r for r in revisions if matches(ds, r)), key=lambda r: r.get("revision", 0), reverse=True)
    old = [r for r in revisions if not matches(ds, r)]
    next_revision = max((r.get("revision", 0) for r in old), default=0) + 1
    if not current:
        return History(None, old, create=snapshot(ds, next_revision))
    cur = current[0]
    renumber = next_revision if cur.get("revision", 0) < next_revision else None
    return History(cur, old, renumber=renumber, duplicates=current[1:])


def to_clean(ds: dict, old: list[dict], live_hashes: set[str]) -> list[dict]:
    """cleanupHistory: old revisions beyond revisionHistoryLimit, oldest first, none a live pod uses."""
    kill = len(old) - ds["spec"].get("revisionHistoryLimit", 10)
    out = []
    for revision in sorted(old, key=lambda r: r.get("revision", 0)):
        if kill <= 0:
            break
        if (revision["metadata"].get("labels") or {}).get(HASH_LABEL) in live_hashes:
            continue
        out.append(revision)
        kill -= 1
    return out
