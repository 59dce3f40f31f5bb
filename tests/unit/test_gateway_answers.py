"""Which encoding the gateway answers in, from the Accept list (client-go's typed clients ask
`application/vnd.kubernetes.protobuf,application/json`; a Table is asked for as JSON)."""
from __future__ import annotations

import pytest

from aiohttp.test_utils import make_mocked_request

from actors.gateway.responses import object_response, wants_protobuf


@pytest.mark.parametrize("accept, protobuf", [
    pytest.param(None, False, id="none"),
    pytest.param("application/json", False, id="json"),
    pytest.param("*/*", False, id="anything"),
    pytest.param("application/vnd.kubernetes.protobuf", True, id="protobuf"),
    pytest.param("application/vnd.kubernetes.protobuf,application/json", True, id="typed-client"),
    pytest.param("application/vnd.kubernetes.protobuf, */*", True, id="protobuf-then-anything"),
    pytest.param("application/json, application/vnd.kubernetes.protobuf", False, id="json-first"),
    pytest.param("application/vnd.kubernetes.protobuf;stream=watch", True, id="watch"),
    pytest.param("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", False, id="table"),
    pytest.param("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json", False,
                 id="table-as-protobuf-is-json"),
    pytest.param("text/html, application/vnd.kubernetes.protobuf", True, id="skips-what-kubus-cannot-answer"),
])
def test_the_encoding_of_an_answer(accept, protobuf):
    assert wants_protobuf(accept) is protobuf


@pytest.mark.parametrize("accept, body, content_type", [
    pytest.param("application/vnd.kubernetes.protobuf,application/json", {"apiVersion": "v1", "kind": "Namespace"},
                 "application/vnd.kubernetes.protobuf", id="a-served-kind"),
    pytest.param("application/vnd.kubernetes.protobuf,application/json",
                 {"apiVersion": "v1", "kind": "ComponentStatus"}, "application/json", id="a-kind-without-a-message"),
    pytest.param("application/vnd.kubernetes.protobuf,application/json",
                 {"apiVersion": "v1", "kind": "Pod", "spec": {"priority": "high"}}, "application/json",
                 id="a-value-its-message-cannot-hold"),
    pytest.param("application/json", {"apiVersion": "v1", "kind": "Namespace"}, "application/json", id="json-asked"),
])
def test_an_object_answers_in_protobuf_only_when_it_can(accept, body, content_type):
    answer = object_response(make_mocked_request("GET", "/", headers={"Accept": accept}), body)
    assert answer.content_type == content_type
