"""DELETE of a collection (Kubernetes' `deletecollection`, registry/generic/registry/store.go
DeleteCollection), authorized once as `deletecollection` of the kind in the namespace: the items a list
with the request's label and field selectors finds, each deleted as a DELETE of it would be — the
node authorizer's guard, its finalizers and grace (the store's delete) — in the requester's name.
The answer is the list of what was deleted (graceful ones as they now stand, with their
deletionTimestamp); an item already gone is skipped, the first other failure is the answer."""
from __future__ import annotations

from api.registry import lookup
from api.status import StatusError
from bus.rpc import unwrap

SELECTORS = ("labelSelector", "fieldSelector")
DELETE_OPTIONS = ("gracePeriodSeconds", "propagationPolicy", "preconditions")


class Collections:
    def serve_deletecollection(self, call) -> None:
        req = call.req
        info = lookup(req.kind)
        listing = {"verb": "list", "kind": info.kind, "namespace": req.namespace,
                   "options": {k: req.options[k] for k in SELECTORS if req.options.get(k)}}
        self.call_store(call, listing, "list", lambda r: self._delete_each(call, info, unwrap(r)), as_self=True)

    def _delete_each(self, call, info, listed: dict) -> None:
        items = listed["items"]
        if not items or "All" in (call.req.options.get("dryRun") or ()):
            self.finish(call, {"ok": True, "items": items, "rev": listed["rev"]})
            return
        guard = self._node_guard(call, info)
        options = {k: call.req.options[k] for k in DELETE_OPTIONS if call.req.options.get(k) is not None}
        results: list = [None] * len(items)

        def answered(i: int, reply) -> None:
            results[i] = reply
            if all(r is not None for r in results):
                self._collected(call, results)

        for i, obj in enumerate(items):
            meta = obj["metadata"]
            delete = {"verb": "delete", "kind": info.kind, "namespace": meta.get("namespace"), "name": meta["name"],
                      "options": options, **({"guard": guard} if guard else {})}
            self.call_store(call, delete, f"delete{i}", lambda r, i=i: answered(i, r))

    def _collected(self, call, results: list) -> None:
        deleted, rev = [], 0
        for reply in results:
            try:
                obj = unwrap(reply)["object"]
            except StatusError as exc:
                if exc.reason == "NotFound":
                    continue
                raise
            deleted.append(obj)
            rev = max(rev, int((obj.get("metadata") or {}).get("resourceVersion") or 0))
        self.finish(call, {"ok": True, "items": deleted, "rev": rev})
