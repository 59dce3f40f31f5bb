"""Bound ServiceAccount tokens (config/satokens.py): Kubernetes' claims, the signature, expiry and
audience checks, and a tampered or foreign token refused."""
from __future__ import annotations

import pytest

from config import satokens

KEY = satokens.signing_key(b"cluster secret")
ACCOUNT = {"metadata": {"name": "robot", "namespace": "team", "uid": "sa-uid"}}
POD = {"metadata": {"name": "web", "uid": "pod-uid"}, "spec": {"nodeName": "node-1"}}


def token(seconds: int = 3607, audiences=(), now: float = 1000.0, key: bytes = KEY) -> str:
    return satokens.sign(satokens.claims_for("team", ACCOUNT, POD, list(audiences), seconds, now), key)


def test_claims_name_the_account_the_pod_and_the_node():
    claims = satokens.verify(token(), KEY, clock=lambda: 1000.0)
    assert claims["sub"] == "system:serviceaccount:team:robot" and claims["aud"] == [satokens.API_AUDIENCE]
    assert (claims["iat"], claims["nbf"], claims["exp"]) == (1000, 1000, 4607)
    assert claims["kubernetes.io"] == {"namespace": "team", "serviceaccount": {"name": "robot", "uid": "sa-uid"},
                                       "pod": {"name": "web", "uid": "pod-uid"}, "node": {"name": "node-1"}}
    assert satokens.account_of(claims) == ("team", "robot", "sa-uid")
    assert satokens.pod_of(claims) == ("web", "pod-uid")
    assert satokens.looks_like_jwt(token()) and not satokens.looks_like_jwt("user:password")
    assert satokens.unverified_subject(token()) == "system:serviceaccount:team:robot"


def _tampered() -> str:
    head, body, mac = token().split(".")
    return f"{head}.{body[:-2]}xx.{mac}"


@pytest.mark.parametrize("given, audiences, now, error", [
    pytest.param(token(), None, 4608.0, "service account token has expired", id="expired"),
    pytest.param(token(key=satokens.signing_key(b"other")), None, 1000.0, "cryptographic primitive", id="foreign"),
    pytest.param(_tampered(), None, 1000.0, "invalid bearer token", id="tampered"),
    pytest.param("a.b", None, 1000.0, "invalid bearer token", id="not-a-jwt"),
    pytest.param(token(audiences=["vault"]), None, 1000.0, "is invalid for the target audiences", id="audience"),
])
def test_refused(given, audiences, now, error):
    with pytest.raises(satokens.TokenError, match=error):
        satokens.verify(given, KEY, audiences, clock=lambda: now)


def test_a_token_for_an_asked_audience_passes():
    assert satokens.verify(token(audiences=["vault"]), KEY, ["vault"], clock=lambda: 1000.0)["aud"] == ["vault"]
