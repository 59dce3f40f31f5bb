"""DELETE of a collection (Kubernetes' `deletecollection`, registry/generic/registry/store.go
DeleteCollection), authorized once as `deletecollection` of the kind in the namespace: the items a list
with the request's label and field selectors finds, each deleted as a DELETE of it would be — the
node authorizer's guard, its finalizers and grace (the store's delete) — in the requester's name;
while a webhook or a ValidatingAdmissionPolicy is configured, each item first through DELETE admission
(oldObject the item, name "" as Kubernetes' DeleteCollection judges it) and then deleted only as that
object (its uid a precondition). The answer is the list of what was deleted (graceful ones as they now stand, with their
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
        warnings: list[str] = []

        def answered(i: int, reply) -> None:
            results[i] = reply
            if all(r is not None for r in results):
                self.safe(call, self._answer)(call, results, warnings)

        def delete(i: int, obj: dict, held: dict) -> None:
            meta = obj["metadata"]
            body = {"verb": "delete", "kind": info.kind, "namespace": meta.get("namespace"), "name": meta["name"],
                    "options": held, **({"guard": guard} if guard else {})}
            self.call_store(call, body, f"delete{i}", lambda r: answered(i, r))

        def admitted(i: int, obj: dict, attempt) -> None:
            call.annotations.update(attempt.annotations)
            warnings.extend(attempt.warnings)
            delete(i, obj, {**options, "preconditions": {"uid": obj["metadata"]["uid"],
                                                         **options.get("preconditions", {})}})

        judged = self._admits_deletes()
        for i, obj in enumerate(items):
            if judged:
                self.admit_deletion(call, info, "", obj, lambda attempt, i=i, obj=obj: admitted(i, obj, attempt),
                                    lambda exc, i=i: answered(i, exc) if results[i] is None else None)
            else:
                delete(i, obj, options)

    def _answer(self, call, results: list, warnings: list[str]) -> None:
        deleted, rev = [], 0
        for reply in results:
            try:
                if isinstance(reply, Exception):
                    raise reply
                obj = unwrap(reply)["object"]
            except StatusError as exc:
                if exc.reason == "NotFound":
                    continue
                raise
            deleted.append(obj)
            rev = max(rev, int((obj.get("metadata") or {}).get("resourceVersion") or 0))
        self.finish(call, {"ok": True, "items": deleted, "rev": rev, **({"warnings": warnings} if warnings else {})})
