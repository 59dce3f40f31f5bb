"""The kubelet's token manager for one pod: what it asks for, and when it asks again (pure logic)."""
from __future__ import annotations

import pytest

from actors.kubelet.podtoken import PodToken, request_options


def pod(*sources: dict) -> dict:
    return {"metadata": {"name": "web"}, "spec": {"volumes": [{"name": "v", "projected": {"sources": list(sources)}}]}}


@pytest.mark.parametrize("given, options", [
    pytest.param(pod({"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}}),
                 {"pod": "web", "expirationSeconds": 3607}, id="kube-api-access"),
    pytest.param(pod({"serviceAccountToken": {"path": "t", "audience": "vault", "expirationSeconds": 7200}}),
                 {"pod": "web", "expirationSeconds": 7200, "audiences": ["vault"]}, id="audience"),
    pytest.param({"metadata": {"name": "web"}, "spec": {}}, {"pod": "web", "expirationSeconds": 3607}, id="none"),
])
def test_the_request_is_bound_to_the_pod_for_its_projection(given, options):
    assert request_options(given) == options


def test_a_token_is_asked_again_at_80_percent_of_its_life_and_soon_after_a_failure():
    token = PodToken()
    assert not token.due(1e9)  # none wanted yet
    token.asking = True
    token.got("t1", 3600, now=100.0)
    assert token.value == "t1" and not token.due(100.0 + 2879) and token.due(100.0 + 2880)
    token.asking = True
    assert not token.due(1e9)  # one request at a time
    token.failed(now=5000.0)
    assert token.value == "t1" and not token.due(5004.0) and token.due(5005.0)  # the old one stays meanwhile
