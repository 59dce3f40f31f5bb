"""TokenReview (`create tokenreviews`, authentication.k8s.io/v1): whether a bound ServiceAccount token is
good now — this cluster's signature, not expired, for one of the asked audiences, its account still there
with the same uid, and the pod it is bound to still there with the same uid (a deleted pod's token stops
working) — and whom it names. Kubernetes allows it to `system:auth-delegator`; kubus also lets a token's
own subject review it (the gateway does so for each login with such a token: it learns nothing new)."""
from __future__ import annotations

from api.status import StatusError, bad_request
from bus.rpc import unwrap
from config import satokens
from config.identities import SA_PREFIX

REVIEW = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview"}
POD_NAME, POD_UID = "authentication.kubernetes.io/pod-name", "authentication.kubernetes.io/pod-uid"


def spec_of(review) -> dict:
    """A TokenReview's spec, or nothing when the body is not an object with an object spec."""
    spec = review.get("spec") if isinstance(review, dict) else None
    return spec if isinstance(spec, dict) else {}


def own_token_review(req, user_name: str) -> bool:
    if req.kind != "TokenReview" or req.verb != "create" or not user_name.startswith(SA_PREFIX):
        return False  # (checked first: another kind's body may be a JSON patch, a list)
    return satokens.unverified_subject(str(spec_of(req.object).get("token") or "")) == user_name


def user_of(claims: dict) -> dict:
    namespace, _, uid = satokens.account_of(claims)
    user = {"username": claims["sub"], "uid": uid,
            "groups": ["system:serviceaccounts", f"system:serviceaccounts:{namespace}", "system:authenticated"],
            "extra": {"authentication.kubernetes.io/credential-id": [f"JTI={claims.get('jti', '')}"]}}
    pod = satokens.pod_of(claims)
    if pod is not None:
        user["extra"].update({POD_NAME: [pod[0]], POD_UID: [pod[1]]})
    node = claims["kubernetes.io"].get("node")
    if isinstance(node, dict):
        user["extra"]["authentication.kubernetes.io/node-name"] = [str(node.get("name", ""))]
    return user


def checked_spec(review) -> dict:
    """The spec of a TokenReview kube-apiserver would decode, or its 400: a string token (required), a list
    of string audiences."""
    spec = spec_of(review)
    token, audiences = spec.get("token"), spec.get("audiences")
    for field, value, go_type in (("token", token, "string"), ("audiences", audiences, "[]string")):
        wrong = value is not None and not (isinstance(value, str) if go_type == "string" else
                                           isinstance(value, list) and all(isinstance(a, str) for a in value))
        if wrong:
            raise bad_request(f'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot '
                              f'unmarshal {type(value).__name__} into Go struct field TokenReviewSpec.spec.{field} '
                              f'of type {go_type}')
    if not token:
        raise bad_request("token is required for TokenReview in authentication")
    return spec


class TokenReviews:
    def review_token(self, call) -> None:
        spec = checked_spec(call.req.object)
        audiences = list(spec.get("audiences") or [])
        answer = lambda status: self.finish(call, {"ok": True, "object": {**REVIEW, "metadata": {}, "spec": spec,
                                                                           "status": status}})
        try:
            claims = satokens.verify(str(spec.get("token") or ""), self.token_key(), audiences or None)
        except satokens.TokenError as exc:
            answer({"user": {}, "error": str(exc)})
            return
        namespace, name, uid = satokens.account_of(claims)
        account = self.cache.get("ServiceAccount", namespace, name)
        why = f'serviceaccounts "{name}" not found' if account is None else \
            f'service account UID ({account["metadata"]["uid"]}) does not match claim ({uid})' \
            if account["metadata"].get("uid") != uid else None
        good = {"authenticated": True, "user": user_of(claims),
                "audiences": [a for a in claims.get("aud") or [] if not audiences or a in audiences]}
        pod = satokens.pod_of(claims)
        if why is not None or pod is None:
            answer({"user": {}, "error": f"invalid bearer token, {why}"} if why else good)
            return
        get = {"verb": "get", "kind": "Pod", "namespace": namespace, "name": pod[0], "options": {}}
        self.call_store(call, get, "pod", lambda r: answer(_pod_checked(r, pod, good)), as_self=True)


def _pod_checked(reply, pod: tuple[str, str], good: dict) -> dict:
    try:
        found = unwrap(reply)["object"]
    except StatusError as exc:
        return {"user": {}, "error": f"invalid bearer token, {exc.message}"}
    if found["metadata"].get("uid") != pod[1]:
        return {"user": {}, "error": f'invalid bearer token, pod UID ({found["metadata"].get("uid")}) does not match '
                                     f'claim ({pod[1]})'}
    return good
