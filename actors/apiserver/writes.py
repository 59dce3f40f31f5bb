"""Reads and writes of objects through the chain: the node authorizer's guard, admission
(mutating, the object's validation, validating) with the stored object where a plugin needs it,
then the command to the store (which charges ResourceQuotas, where no two writers can race)."""
from __future__ import annotations

import copy

from actors.apiserver import admission, fieldmanager
from actors.apiserver.admission import Attempt
from actors.apiserver.admission.podsecurity import enforced
from actors.apiserver.attributes import of_request
from actors.apiserver.authz import forbidden
from actors.apiserver.authz.node import node_identity
from actors.apiserver.nodegraph import REFERENCED
from api import customobjects, scope, service
from api.customkinds import CustomKind
from api.admission import admit_status, checked, decode, prepare_for_create
from api.crdschema import rules
from api.patch.apply import apply_patch
from api.registry import KindInfo, lookup
from api.status import StatusError
from api.times import now
from bus.rpc import unwrap

PATCH_RETRIES = 5
OPERATIONS = {"create": "CREATE", "update": "UPDATE", "updateStatus": "UPDATE", "patch": "UPDATE",
              "delete": "DELETE"}


class Writes:
    def write(self, call) -> None:
        req = call.req
        info = lookup(req.kind)
        body = {**call.msg.body, "kind": info.kind}
        if isinstance(info, CustomKind) and req.verb == "create":
            customobjects.refuse_while_terminating(info)
        guard = self._node_guard(call, info)
        if guard:
            body["guard"] = guard
        if req.verb == "get" and call.decision.node_guard and info.kind in REFERENCED:
            self.through_node_graph(call, info.kind, lambda: self.forward(call, body))
            return
        if req.verb in scope.PLACED and isinstance(req.object, dict):
            body["object"] = scope.placed(info, req.verb, req.namespace, req.name, req.object)
        elif req.verb == "bind":
            scope.names_the_pod("Binding", req.namespace, req.name, req.object)
        if req.verb in ("create", "update", "updateStatus"):
            fieldmanager.stamped(call, body)
        if req.verb == "patch":
            self._patch(call, info, guard)
        elif req.verb == "delete" and self._admits_deletes():
            self._get_for(call, info, guard, "old", lambda r: self._admit_delete(call, info, body, unwrap(r)["object"]))
        elif req.verb == "delete" and _dry_run(req):
            self._get_for(call, info, guard, "get", lambda r: self.finish(call, {"ok": True, **unwrap(r)}))
        elif req.verb in ("create", "update", "updateStatus"):
            if self._needs_old(call, info):
                get = {"verb": "get", "kind": info.kind, "namespace": req.namespace, "name": req.name,
                       "options": {}}
                self.call_store(call, get, "old", lambda r: self._admit(call, info, body, unwrap(r)["object"]),
                                as_self=True)
            else:
                self._admit(call, info, body, None)
        else:
            self.forward(call, body)

    def _needs_old(self, call, info: KindInfo) -> bool:
        """Plugins that judge a change, not a state: NodeRestriction (a node's labels and taints), Pod
        Security (a namespace's new labels; a pod's significant changes, where a policy is enforced),
        RBAC escalation; admission webhooks (an UPDATE's review carries the oldObject); ValidatingAdmission-
        Policies (`oldObject`) while any is bound; a custom kind's transition rules (`oldSelf`). The common
        update, a pod in a privileged namespace with no webhook or policy configured, needs no second trip."""
        if call.req.verb != "update":
            return False
        if self.cache.list("MutatingWebhookConfiguration") or self.cache.list("ValidatingWebhookConfiguration") \
                or self.cache.list("ValidatingAdmissionPolicyBinding"):
            return True  # a webhook or a policy may be met: both see the oldObject
        if isinstance(info, CustomKind) and rules.has_transition(info.schema):
            return True
        if info.kind == "Pod":
            return enforced(self.cache, call.req.namespace)
        return info.kind in ("Namespace", "Role", "ClusterRole", "Service") or (
            info.kind == "Node" and node_identity(call.user)[1])

    # ---- delete: through the webhooks and policies when any is configured --------------------------
    def _admits_deletes(self) -> bool:
        return bool(self.cache.list("MutatingWebhookConfiguration") or self.cache.list("ValidatingWebhookConfiguration")
                    or self.cache.list("ValidatingAdmissionPolicyBinding"))

    def _admit_delete(self, call, info: KindInfo, body: dict, old: dict) -> None:
        """The delete holds to the uid of the object admission judged, so it removes that object."""
        req = call.req

        def admitted(attempt: Attempt) -> None:
            call.annotations.update(attempt.annotations)
            if _dry_run(req):
                self.finish(call, {"ok": True, "object": old})
                return
            options = {**(body.get("options") or {})}
            options["preconditions"] = {"uid": old["metadata"]["uid"], **(options.get("preconditions") or {})}
            self.forward(call, {**body, "options": options}, attempt.warnings)
        self.admit_deletion(call, info, req.name, old, admitted, lambda exc: self.safe(call, _raise)(exc))

    def admit_deletion(self, call, info: KindInfo, name: str, old: dict, then, fail) -> None:
        """Kubernetes' DELETE admission (rest.AdmissionToValidateObjectDeleteFunc): operation DELETE, object
        null, oldObject the stored object, mutating then validating; `then(attempt)` when all let it,
        else `fail(exc)` once. A deletecollection's items are judged under the name "", as Kubernetes'."""
        namespace = (call.req.namespace or "") if info.namespaced else ""
        attempt = Attempt("DELETE", info, "", namespace, name, None, old, call.user, self.cache,
                          dry_run=_dry_run(call.req), authorize=self.authz.decide)

        def mutated() -> None:
            try:
                admission.validate_delete(attempt)
            except StatusError as exc:
                fail(exc)
                return
            self.webhooks.validate(attempt, lambda: then(attempt), fail)
        try:
            admission.mutate_delete(attempt)
        except StatusError as exc:
            fail(exc)
            return
        self.webhooks.mutate(attempt, lambda patched: patched, mutated, fail)

    def _admit(self, call, info: KindInfo, body: dict, old: dict | None) -> None:
        self.admit_object(call, info, _carried(info, old, body["object"]), old, call.req.verb == "updateStatus",
                          lambda attempt: self._admitted(call, info, body, attempt))

    def _admitted(self, call, info: KindInfo, body: dict, attempt: Attempt) -> None:
        body["object"] = fieldmanager.applied_create(call, info, attempt.obj) if call.req.verb == "create" \
            else attempt.obj
        if _dry_run(call.req):
            self._answer_dry_run(call, attempt)
        else:
            self.forward(call, body, attempt.warnings)

    def _answer_dry_run(self, call, attempt: Attempt) -> None:
        """`dryRun=All`: the object as admission left it, as the write would have stored it."""
        obj = attempt.obj
        if call.req.verb == "create":
            obj.setdefault("metadata", {}).setdefault("creationTimestamp", now())
        self.finish(call, {"ok": True, "object": obj, **({"warnings": attempt.warnings} if attempt.warnings else {})})

    def admit_object(self, call, info: KindInfo, obj, old: dict | None, status_only: bool, then) -> None:
        """Admission, then `then(attempt)`: at once when no webhook is met, else once the webhooks
        answered (on this thread; a refusal on the way is the request's answer)."""
        req = call.req
        namespace = (req.namespace or "") if info.namespaced else ""
        attempt = Attempt(OPERATIONS[req.verb], info, "status" if status_only else "", namespace,
                          req.name or _name_of(obj), None, old, call.user, self.cache, dry_run=_dry_run(req),
                          authorize=self.authz.decide)
        if status_only:
            attempt.obj = admit_status(info.kind, obj)
            redefault = lambda patched: admit_status(info.kind, patched)  # noqa: E731
        else:
            attempt.obj = decode(info.kind, obj, req.namespace)
            attempt.name = attempt.name or _name_of(attempt.obj)
            redefault = lambda patched: decode(info.kind, patched, req.namespace)  # noqa: E731
        admission.mutate(attempt)
        fail = lambda exc: self.safe(call, _raise)(exc)  # noqa: E731
        self.webhooks.mutate(attempt, redefault, lambda: self._validate(call, attempt, status_only, then, fail), fail)

    def _validate(self, call, attempt: Attempt, status_only: bool, then, fail) -> None:
        if not status_only:
            if attempt.operation == "CREATE":
                prepare_for_create(attempt.info.kind, attempt.obj)
            attempt.obj = checked(attempt.info.kind, attempt.obj, attempt.old)
        admission.validate(attempt)

        def done() -> None:
            call.annotations.update(attempt.annotations)
            then(attempt)
        self.webhooks.validate(attempt, done, fail)

    # ---- the node authorizer's condition, checked by the store -----------------------------------
    def _node_guard(self, call, info: KindInfo) -> dict | None:
        node = call.decision.node_guard
        if node is None or info.kind != "Pod":
            return None
        verb, name = call.req.verb, call.req.name or ""
        if verb == "delete":
            why = f'node "{node}" can only delete pods with spec.nodeName set to itself'
        elif verb in ("updateStatus", "patch"):
            why = f'node "{node}" can only update pod status for pods with spec.nodeName set to itself'
        else:
            return {"nodeName": node, "message": forbidden(of_request(call.user, call.req)[0],
                    f"no relationship found between node '{node}' and this object").message}
        return {"nodeName": node, "message": f'pods "{name}" is forbidden: {why}'}

    # ---- patch: get, merge, admit, update with the read resourceVersion; retry on Conflict ----------
    def _patch(self, call, info: KindInfo, guard: dict | None, attempt: int = 1) -> None:
        self._get_for(call, info, guard, "get", lambda r: self._patch_got(call, info, guard, attempt, r))

    def _get_for(self, call, info: KindInfo, guard: dict | None, step: str, done) -> None:
        req = call.req
        get = {"verb": "get", "kind": info.kind, "namespace": req.namespace, "name": req.name, "options": {}}
        if guard:
            get["guard"] = guard
        self.call_store(call, get, step, done)

    def _patch_got(self, call, info: KindInfo, guard: dict | None, attempt: int, reply) -> None:
        req = call.req
        current = unwrap(reply)["object"]
        status_only = req.options.get("subresource") == "status"
        patch_type = req.options.get("patchType") or "merge"
        patched = fieldmanager.applied_patch(call, info, current) if patch_type == "apply" else \
            apply_patch(info.kind, current, req.object, patch_type, self.settings.max_object_bytes)
        patched = _carried(info, current, scope.placed(info, "update", req.namespace, req.name, patched))
        self.admit_object(call, info, patched, current, status_only,
                          lambda admitted: self._patch_admitted(call, info, guard, attempt, current, admitted))

    def _patch_admitted(self, call, info: KindInfo, guard: dict | None, attempt: int, current: dict,
                        admitted: Attempt) -> None:
        req = call.req
        status_only = req.options.get("subresource") == "status"
        if _dry_run(req):
            self._answer_dry_run(call, admitted)
            return
        update = {"verb": "updateStatus" if status_only else "update", "kind": info.kind,
                  "namespace": req.namespace, "name": req.name, "object": admitted.obj,
                  "resourceVersion": current["metadata"]["resourceVersion"],
                  "options": {"fieldManager": fieldmanager.manager(call) or None,
                              "apply": req.options.get("patchType") == "apply" or None}}
        update["options"] = {k: v for k, v in update["options"].items() if v is not None}
        if guard:
            update["guard"] = guard
        if admitted.warnings:
            update["warnings"] = admitted.warnings
        self.call_store(call, update, "update", lambda r: self._patch_done(call, info, guard, attempt, r))

    def _patch_done(self, call, info: KindInfo, guard: dict | None, attempt: int, reply) -> None:
        if isinstance(reply, dict) and not reply.get("ok") and reply["status"]["reason"] == "Conflict" \
                and attempt < PATCH_RETRIES:
            self._patch(call, info, guard, attempt + 1)
            return
        self.finish(call, reply if isinstance(reply, dict) else {"ok": False, "status": reply.to_dict()})


def _carried(info: KindInfo, old: dict | None, new):
    """A Service update keeps its allocated IP and node ports where it leaves them out, and drops what a
    new type needs no more (Kubernetes does this before validation too)."""
    if info.kind == "Service" and old is not None and isinstance(new, dict):
        new = copy.deepcopy(new)
        service.carry(old, new)
    return new


def _raise(exc: Exception) -> None:
    raise exc


def _name_of(obj) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return (meta.get("name") or meta.get("generateName") or "") if isinstance(meta, dict) else ""


def _dry_run(req) -> bool:
    return "All" in (req.options.get("dryRun") or ())
