"""A pod's eviction (Kubernetes' EvictionREST, pkg/registry/core/pod/storage/eviction.go), authorized
as `create pods/eviction`: the pod's PodDisruptionBudget is checked and charged — disruptionsAllowed
decremented and the pod recorded in `disruptedPods`, written with the budget's resourceVersion, so two
evictions racing for the last disruption cannot both pass (the loser reads the budget again) — and
only then is the pod marked `DisruptionTarget` and deleted. A plain DELETE ignores budgets, as in
Kubernetes."""
from __future__ import annotations

import copy

from api import pdb as pdbs
from api import scope
from api.registry import lookup
from api.status import Cause, StatusError
from api.times import now
from bus.rpc import unwrap

PDB = "PodDisruptionBudget"
RETRIES = 20  # conflicts on the budget's status before giving up (Kubernetes: EvictionsRetry)
VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget."
MORE_THAN_ONE = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
TOO_MANY_AWAITED = "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def budget_refusal(pdb: dict) -> StatusError | None:
    """checkAndDecrement's refusals, or None when the budget allows one more disruption."""
    meta, status = pdb["metadata"], pdb.get("status") or {}
    name = meta["name"]
    if status.get("observedGeneration", 0) < meta.get("generation", 1):
        return StatusError("TooManyRequests", VIOLATES,
                           [Cause("", f"The disruption budget {name} is still being processed by the server.",
                                  "DisruptionBudget")], {"retryAfterSeconds": 10})
    allowed = status.get("disruptionsAllowed", 0)
    if allowed < 0:
        return StatusError("Forbidden", "pdb disruptions allowed is negative")
    if len(status.get("disruptedPods") or {}) > pdbs.MAX_DISRUPTED_PODS:
        return StatusError("Forbidden", TOO_MANY_AWAITED)
    if allowed == 0:
        return StatusError("TooManyRequests", VIOLATES, [Cause(
            "", f"The disruption budget {name} needs {status.get('desiredHealthy', 0)} healthy pods and has "
                f"{status.get('currentHealthy', 0)} currently", "DisruptionBudget")])
    return None


def charged(pdb: dict, pod_name: str) -> dict:
    """The budget with one disruption fewer and the pod awaited."""
    charged_pdb = copy.deepcopy(pdb)
    status = charged_pdb.setdefault("status", {})
    status["disruptionsAllowed"] = status.get("disruptionsAllowed", 0) - 1
    status.setdefault("disruptedPods", {})[pod_name] = now()
    return charged_pdb


def skips_budget(pod: dict) -> bool:
    """canIgnorePDB: a finished, pending or deleting pod goes without asking its budget."""
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed", "Pending") or \
        bool(pod["metadata"].get("deletionTimestamp"))


def unhealthy_may_go(pdb: dict, pod: dict) -> bool:
    """An unready pod is evicted without using the budget under AlwaysAllow, or while the budget is met."""
    if pdbs.is_healthy(pod):
        return False
    status = pdb.get("status") or {}
    if (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == pdbs.ALWAYS_ALLOW:
        return True
    return status.get("currentHealthy", 0) >= status.get("desiredHealthy", 0) > 0


class Evictions:
    def serve_evict(self, call) -> None:
        req = call.req
        scope.names_the_pod("Eviction", req.namespace, req.name, req.object)
        get = {"verb": "get", "kind": "Pod", "namespace": req.namespace, "name": req.name, "options": {}}
        guard = self._node_guard(call, lookup("Pod"))  # a node evicts only its own pods
        if guard:
            get["guard"] = guard
        self.call_store(call, get, "pod", lambda r: self._evict_pod(call, unwrap(r)["object"], 1), as_self=True)

    def _evict_pod(self, call, pod: dict, attempt: int) -> None:
        if skips_budget(pod):
            self._evict_delete(call, pod, {})
            return
        listing = {"verb": "list", "kind": PDB, "namespace": call.req.namespace, "options": {}}
        self.call_store(call, listing, "pdbs", lambda r: self._evict_checked(call, pod, unwrap(r)["items"], attempt),
                        as_self=True)

    def _evict_checked(self, call, pod: dict, budgets: list[dict], attempt: int) -> None:
        budgets = [b for b in budgets if pdbs.selects(b, pod)]
        if not budgets:
            self._evict_delete(call, pod, {})
            return
        if len(budgets) > 1:
            raise StatusError("InternalError", MORE_THAN_ONE)
        pdb = budgets[0]
        if unhealthy_may_go(pdb, pod):
            self._evict_delete(call, pod, {"resourceVersion": pod["metadata"]["resourceVersion"]})
            return
        refusal = budget_refusal(pdb)
        if refusal is not None:
            raise refusal
        if "All" in (call.req.options.get("dryRun") or ()):
            self._evict_delete(call, pod, {})  # answered as if done; nothing charged
            return
        update = {"verb": "updateStatus", "kind": PDB, "namespace": call.req.namespace,
                  "name": pdb["metadata"]["name"], "object": charged(pdb, pod["metadata"]["name"]),
                  "resourceVersion": pdb["metadata"]["resourceVersion"], "options": {}}
        self.call_store(call, update, "pdb", lambda r: self._evict_charged(call, pod, r, attempt), as_self=True)

    def _evict_charged(self, call, pod: dict, reply, attempt: int) -> None:
        if isinstance(reply, dict) and not reply.get("ok") and reply["status"]["reason"] == "Conflict":
            if attempt >= RETRIES:
                raise StatusError("TooManyRequests", VIOLATES, [Cause("", "the disruption budget kept changing",
                                                                      "DisruptionBudget")])
            self._evict_pod(call, pod, attempt + 1)  # another eviction (or the controller) wrote first
            return
        unwrap(reply)
        self._evict_delete(call, pod, {})

    def _evict_delete(self, call, pod: dict, preconditions: dict) -> None:
        """DisruptionTarget=True on the pod (best effort, as Kubernetes), then its delete with the
        Eviction's deleteOptions; the answer is a Status of Success (at once under dryRun)."""
        if "All" in (call.req.options.get("dryRun") or ()):
            self.finish(call, {"ok": True, "object": dict(SUCCESS)})
            return
        status = copy.deepcopy(pod.get("status") or {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != pdbs.DISRUPTION_TARGET]
        status["conditions"] = [*conditions, {"type": pdbs.DISRUPTION_TARGET, "status": "True",
                                              "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting",
                                              "lastTransitionTime": now()}]
        mark = {"verb": "updateStatus", "kind": "Pod", "namespace": call.req.namespace, "name": call.req.name,
                "object": {**pod, "status": status}, "options": {}}
        self.call_store(call, mark, "target", lambda r: self._evict_delete_now(call, preconditions), as_self=True)

    def _evict_delete_now(self, call, preconditions: dict) -> None:
        options = dict(call.req.options)
        if preconditions:
            options["preconditions"] = {**(options.get("preconditions") or {}), **preconditions}
        delete = {"verb": "delete", "kind": "Pod", "namespace": call.req.namespace, "name": call.req.name,
                  "options": options}
        self.call_store(call, delete, "delete", lambda r: self._evicted(call, r))

    def _evicted(self, call, reply) -> None:
        if isinstance(reply, dict) and not reply.get("ok") and reply["status"]["reason"] == "Conflict":
            raise StatusError("TooManyRequests", VIOLATES, [Cause("", "the pod changed while it was evicted",
                                                                  "DisruptionBudget")])  # its precondition failed
        unwrap(reply)
        self.finish(call, {"ok": True, "object": dict(SUCCESS)})
