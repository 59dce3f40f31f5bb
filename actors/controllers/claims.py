"""Controller references, as client-go's ControllerRefManager keeps them: an owner claims the
objects its selector matches, adopts matching orphans and releases what stops matching."""
from __future__ import annotations

from typing import Callable, Iterable

from api.selectors import from_label_selector

SetOwners = Callable[[dict, list[dict]], None]


def controller_of(obj: dict) -> dict | None:
    return next((r for r in obj["metadata"].get("ownerReferences") or [] if r.get("controller")), None)


def controller_ref(owner: dict) -> dict:
    return {"apiVersion": owner.get("apiVersion", "apps/v1"), "kind": owner["kind"],
            "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"], "controller": True,
            "blockOwnerDeletion": True}


def claim(owner: dict, candidates: Iterable[dict], set_owners: SetOwners,
          adoptable: Callable[[dict], bool] = lambda obj: True) -> list[dict]:
    """The candidates `owner` controls after this pass. While the owner is not being deleted, orphans
    that match (and are `adoptable`, and not being deleted) get its controller reference and owned
    objects that stopped matching lose it. `set_owners` writes an object's new ownerReferences."""
    selector = from_label_selector(owner["spec"].get("selector"))
    uid = owner["metadata"]["uid"]
    deleting = bool(owner["metadata"].get("deletionTimestamp"))
    claimed = []
    for obj in candidates:
        ref = controller_of(obj)
        matches = selector.matches(obj["metadata"].get("labels"))
        refs = list(obj["metadata"].get("ownerReferences") or [])
        if ref is not None and ref.get("uid") == uid:
            if matches:
                claimed.append(obj)
            elif not deleting:
                set_owners(obj, [r for r in refs if r.get("uid") != uid])
        elif ref is None and matches and not deleting and not obj["metadata"].get("deletionTimestamp") \
                and adoptable(obj):
            set_owners(obj, refs + [controller_ref(owner)])
            claimed.append(obj)
    return claimed


def matching(owners: Iterable[dict], obj: dict) -> list[dict]:
    """The owners whose selector matches an orphan's labels: the ones that may adopt it."""
    labels = obj["metadata"].get("labels") or {}
    return [o for o in owners if from_label_selector(o["spec"].get("selector")).matches(labels)]
