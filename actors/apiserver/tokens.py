"""TokenRequest (`create serviceaccounts/token`): a bound ServiceAccount token, a JWT the apiserver signs
(config/satokens.py) naming the account and, when bound, the pod (each with its uid), for its audiences,
expiring after `expirationSeconds` (default an hour, at least ten minutes). Asked by a person (`kubectl
create token`) or by a kubelet for a pod bound to its node (the node authorizer's guard: the pod must
be), which also gets `status.busCredential`, the account's broker credential `<user>:<password>` (the
password tied to the account's uid), so the pod's bus identity is its account's (docs/security.md).
TokenReview (`reviews.py`) answers for the tokens."""
from __future__ import annotations

import time

from api.errors import not_found
from api.status import Cause, StatusError, bad_request
from api.times import now, rfc3339
from bus import accounts
from bus.permissions import permissions
from bus.rpc import unwrap
from config import satokens
from config.credentials import read_secret
from config.identities import password_for, sa_broker_user

TOKEN_REQUEST = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest"}
DEFAULT_SECONDS, MIN_SECONDS, MAX_SECONDS = 3600, 600, 1 << 32


def expiration(options: dict) -> int:
    """`spec.expirationSeconds` (an hour when unset), or Kubernetes' 422 naming it."""
    seconds = options.get("expirationSeconds")
    seconds = DEFAULT_SECONDS if seconds is None else seconds
    why = "may not specify a duration less than 10 minutes" if seconds < MIN_SECONDS else \
        "may not specify a duration larger than 2^32 seconds" if seconds > MAX_SECONDS else None
    if why is None:
        return seconds
    cause = Cause("spec.expirationSeconds", f"Invalid value: {seconds}: {why}")
    raise StatusError("Invalid", f'TokenRequest.authentication.k8s.io "" is invalid: {cause.field}: {cause.message}',
                      [cause], details={"kind": "TokenRequest", "group": "authentication.k8s.io"})


class Tokens:
    _token_key: bytes | None = None
    def serve_token(self, call) -> None:
        req = call.req
        seconds = expiration(req.options)
        pod = req.options.get("pod")
        if pod is None:
            if call.decision.node_guard is not None:
                raise StatusError("Forbidden", f'serviceaccounts "{req.name}" is forbidden: node requested token '
                                               f'not bound to a pod')
            self._issue(call, seconds)
            return
        get = {"verb": "get", "kind": "Pod", "namespace": req.namespace, "name": pod, "options": {}}
        self.call_store(call, get, "pod", lambda r: self._token_for(call, unwrap(r)["object"], seconds), as_self=True)

    def _token_for(self, call, pod: dict, seconds: int) -> None:
        req, node = call.req, call.decision.node_guard
        spec = pod.get("spec") or {}
        if node is not None and spec.get("nodeName") != node:
            raise StatusError("Forbidden", f'serviceaccounts "{req.name}" is forbidden: node requested token bound '
                                           f'to a pod scheduled on a different node')
        if spec.get("serviceAccountName") != req.name:  # none at all: a pod admission did not give one
            raise bad_request(f'cannot bind token for serviceaccount "{req.name}" to pod running with different '
                              f'serviceaccount name.')
        self._issue(call, seconds, pod)

    def _issue(self, call, seconds: int, pod: dict | None = None) -> None:
        req = call.req
        account = self.cache.get("ServiceAccount", req.namespace, req.name or "")
        if account is None:
            raise not_found("ServiceAccount", req.name or "")
        self.offload(lambda: self._ensure_sa_user(req.namespace, req.name, account["metadata"]["uid"]),
                     self.safe(call, lambda credential: self._issued(call, credential, account, seconds, pod)))

    def _issued(self, call, credential: str | StatusError, account: dict, seconds: int, pod: dict | None) -> None:
        if isinstance(credential, StatusError):
            raise credential
        audiences = list(call.req.options.get("audiences") or [])
        spec: dict = {"audiences": audiences, "expirationSeconds": seconds}
        if pod is not None:
            meta = pod.get("metadata") or {}
            spec["boundObjectRef"] = {"kind": "Pod", "apiVersion": "v1", "name": meta.get("name"), "uid": meta.get("uid")}
        issued = time.time()
        claims = satokens.claims_for(call.req.namespace, account, pod, audiences, seconds, issued)
        status = {"token": satokens.sign(claims, self.token_key()), "expirationTimestamp": rfc3339(issued + seconds)}
        if pod is not None and call.decision.node_guard is not None:
            status["busCredential"] = credential  # the pod's bus identity: its account's broker user
        self.finish(call, {"ok": True, "object": {
            **TOKEN_REQUEST, "metadata": {"name": call.req.name, "namespace": call.req.namespace,
                                          "creationTimestamp": now()},
            "spec": spec, "status": status}})

    def token_key(self) -> bytes:
        if self._token_key is None:
            self._token_key = satokens.signing_key(read_secret(self.settings))
        return self._token_key

    def _ensure_sa_user(self, namespace: str, name: str, uid: str) -> str | StatusError:
        """(On a worker thread.) The account's bearer token, its broker user made (or remade for a new uid)."""
        try:
            user = sa_broker_user(self.settings.cluster, namespace, name)
            password = password_for(read_secret(self.settings), user, salt=uid)
            if self._sa_users.get(user) != uid:
                accounts.ensure_user(self.settings.admin_url, user, password)
                accounts.apply(self.settings.admin_url, user, permissions(self.names, "sa", f"{namespace}.{name}"))
                self._sa_users[user] = uid
            return f"{user}:{password}"
        except (accounts.AdminError, SystemExit) as exc:
            return StatusError("ServiceUnavailable", f"cannot issue a token now: {exc}")
