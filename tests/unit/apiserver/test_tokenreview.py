"""Which requests are a ServiceAccount reviewing its own token: only a TokenReview create whose token names
the caller. A request of another kind may carry any body — a JSON patch is a list — and must not break it."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from actors.apiserver.tokenreview import own_token_review, spec_of
from config import satokens

USER = "system:serviceaccount:default:robot"


def request(kind: str, obj, verb: str = "create"):
    return SimpleNamespace(kind=kind, verb=verb, object=obj)


@pytest.mark.parametrize("req", [
    pytest.param(request("Pod", [{"op": "add", "path": "/metadata/labels/a", "value": "b"}], "patch"), id="json-patch"),
    pytest.param(request("TokenReview", [1, 2]), id="review-with-a-list-body"),
    pytest.param(request("TokenReview", {"spec": ["token"]}), id="review-with-a-list-spec"),
    pytest.param(request("TokenReview", None), id="review-without-a-body"),
    pytest.param(request("TokenReview", {"spec": {"token": "not-a-jwt"}}), id="review-of-a-bad-token"),
])
def test_not_an_own_review(req):
    assert own_token_review(req, USER) is False


def test_a_review_of_a_token_naming_the_caller_is_its_own():
    account = {"metadata": {"name": "robot", "namespace": "default", "uid": "sa-uid"}}
    jwt = satokens.sign(satokens.claims_for("default", account, None, [], 3607, 1000.0), satokens.signing_key(b"k"))
    assert own_token_review(request("TokenReview", {"spec": {"token": jwt}}), USER)
    assert not own_token_review(request("TokenReview", {"spec": {"token": jwt}}), "system:serviceaccount:x:y")
    assert not own_token_review(request("TokenReview", {"spec": {"token": jwt}}, "delete"), USER)


@pytest.mark.parametrize("body, spec", [({"spec": {"token": "t"}}, {"token": "t"}), ([], {}), ({"spec": "x"}, {}),
                                        (None, {})])
def test_spec_of(body, spec):
    assert spec_of(body) == spec
