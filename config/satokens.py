"""Bound ServiceAccount tokens: JWTs with Kubernetes' claims (`iss`, `sub`
system:serviceaccount:<ns>:<name>, `aud`, `exp`, `iat`, `nbf`, `jti`, and `kubernetes.io` naming the
namespace, the account and the pod, each with its uid), signed HS256 with a key derived from the
cluster's secret. The apiserver signs (TokenRequest) and reviews (TokenReview: the signature, the
expiry, the audience, and that the account and the bound pod still exist with those uids); the gateway
checks the signature and expiry before it logs in as the account's broker user.

HS256, not Kubernetes' RS256: every party that verifies also holds the cluster secret (the apiserver and
the gateway are kube-apiserver's two halves); no outside verifier reads a public key (no OIDC discovery)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from typing import Callable

ISSUER = "https://kubernetes.default.svc.cluster.local"
API_AUDIENCE = ISSUER  # kube-apiserver's default --api-audiences is the issuer
SA_SUBJECT = "system:serviceaccount:"
_HEADER = {"alg": "HS256", "typ": "JWT"}


class TokenError(ValueError):
    """Not a valid token; the message is what a TokenReview's status.error says."""


def signing_key(secret: bytes) -> bytes:
    return hmac.new(secret, b"kubus serviceaccount token signing key", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and ":" not in token


def claims_for(namespace: str, account: dict, pod: dict | None, audiences: list[str], seconds: int,
               now: float) -> dict:
    meta = account["metadata"]
    private = {"namespace": namespace, "serviceaccount": {"name": meta["name"], "uid": meta["uid"]}}
    if pod is not None:
        private["pod"] = {"name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}
        if (pod.get("spec") or {}).get("nodeName"):
            private["node"] = {"name": pod["spec"]["nodeName"]}
    issued = int(now)
    return {"aud": audiences or [API_AUDIENCE], "exp": issued + seconds, "iat": issued, "nbf": issued,
            "iss": ISSUER, "jti": str(uuid.uuid4()), "kubernetes.io": private,
            "sub": f"{SA_SUBJECT}{namespace}:{meta['name']}"}


def sign(claims: dict, key: bytes) -> str:
    head = _b64(json.dumps(_HEADER, separators=(",", ":")).encode())
    body = _b64(json.dumps(claims, separators=(",", ":")).encode())
    mac = hmac.new(key, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(mac)}"


def verify(token: str, key: bytes, audiences: list[str] | None = None,
           clock: Callable[[], float] = time.time) -> dict:
    """The claims of a token this cluster signed, still valid and for one of `audiences` (the API's
    when none are given); TokenError otherwise. The account and pod are the caller's to look up."""
    try:
        head, body, mac = token.split(".")
        header, claims = json.loads(_unb64(head)), json.loads(_unb64(body))
        given = _unb64(mac)
    except (ValueError, TypeError):
        raise TokenError("invalid bearer token") from None
    wanted = hmac.new(key, f"{head}.{body}".encode(), hashlib.sha256).digest()
    if not isinstance(header, dict) or header.get("alg") != "HS256" or not hmac.compare_digest(given, wanted):
        raise TokenError("invalid bearer token, square/go-jose: error in cryptographic primitive")
    now = clock()
    if not isinstance(claims, dict) or not isinstance(claims.get("exp"), int) or claims["exp"] < now:
        raise TokenError("invalid bearer token, service account token has expired")
    if isinstance(claims.get("nbf"), int) and claims["nbf"] > now + 60:
        raise TokenError("invalid bearer token, service account token is not valid yet")
    if not set(claims.get("aud") or []) & set(audiences or [API_AUDIENCE]):
        raise TokenError("token audiences " + json.dumps(claims.get("aud") or []) + " is invalid for the target "
                         "audiences " + json.dumps(audiences or [API_AUDIENCE]))
    if not str(claims.get("sub", "")).startswith(SA_SUBJECT) or not isinstance(claims.get("kubernetes.io"), dict):
        raise TokenError("invalid bearer token, not a service account token")
    return claims


def account_of(claims: dict) -> tuple[str, str, str]:
    """(namespace, name, uid) of the token's ServiceAccount."""
    private = claims["kubernetes.io"]
    account = private.get("serviceaccount") or {}
    return str(private.get("namespace", "")), str(account.get("name", "")), str(account.get("uid", ""))


def pod_of(claims: dict) -> tuple[str, str] | None:
    """(name, uid) of the pod the token is bound to, if any."""
    pod = claims["kubernetes.io"].get("pod")
    return (str(pod.get("name", "")), str(pod.get("uid", ""))) if isinstance(pod, dict) else None


def unverified_subject(token: str) -> str:
    """The `sub` a token says it is for, unchecked (who may ask for its review: its own subject)."""
    try:
        claims = json.loads(_unb64(token.split(".")[1]))
    except (ValueError, TypeError, IndexError):
        return ""
    return str(claims.get("sub", "")) if isinstance(claims, dict) else ""
