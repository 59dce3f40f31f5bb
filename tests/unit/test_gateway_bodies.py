"""The protobuf bodies kubectl >= 1.32 sends (written here with the wire format's own rules, as
client-go encodes them), and `limit`/`continue` pages."""
from __future__ import annotations

import pytest

from actors.gateway import protobuf
from actors.gateway.protobuf import field
from actors.gateway.pages import Pages
from api.status import StatusError


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = field(1, api_version.encode()) + field(2, kind.encode())
    return protobuf.MAGIC + field(1, type_meta) + field(2, raw) + field(4, b"application/vnd.kubernetes.protobuf")


def test_delete_options_of_kubectl_delete():
    raw = field(1, 0) + field(2, field(1, b"uid-1")) + field(4, b"Background") + field(5, b"All")
    assert protobuf.decode(envelope("v1", "DeleteOptions", raw)) == {
        "apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0, "preconditions": {"uid": "uid-1"},
        "propagationPolicy": "Background", "dryRun": ["All"]}


def test_eviction_of_kubectl_drain():
    meta = field(1, b"web-1") + field(3, b"shop")
    options = field(1, 30) + field(5, b"All")
    assert protobuf.decode(envelope("policy/v1", "Eviction", field(1, meta) + field(2, options))) == {
        "apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-1", "namespace": "shop"},
        "deleteOptions": {"gracePeriodSeconds": 30, "dryRun": ["All"]}}


def test_a_negative_grace_period_is_read_as_signed():
    assert protobuf.decode(envelope("v1", "DeleteOptions", field(1, (1 << 64) - 1)))["gracePeriodSeconds"] == -1


def test_self_subject_access_review_of_kubectl_auth_can_i():
    attrs = field(1, b"shop") + field(2, b"create") + field(5, b"pods")
    body = protobuf.decode(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", field(2, field(1, attrs))))
    assert body["spec"] == {"resourceAttributes": {"namespace": "shop", "verb": "create", "resource": "pods"}}


def test_namespace_of_kubectl_create_namespace():
    meta = field(1, b"shop") + field(11, field(1, b"team") + field(2, b"web"))
    assert protobuf.decode(envelope("v1", "Namespace", field(1, meta)))["metadata"] == {
        "name": "shop", "labels": {"team": "web"}}


@pytest.mark.parametrize("raw, reason", [
    (envelope("apps/v1", "Deployment", b""), "UnsupportedMediaType"),
    (b"not protobuf", "BadRequest"),
    (protobuf.MAGIC + b"\x0a\xff", "BadRequest"),  # a length past the end
])
def test_what_cannot_be_read_is_refused_clearly(raw, reason):
    with pytest.raises(StatusError) as refused:
        protobuf.decode(raw)
    assert refused.value.reason == reason
    if reason == "UnsupportedMediaType":
        assert "Deployment" in refused.value.message and "JSON" in refused.value.message


def test_pages_cover_the_list_once_at_its_revision():
    pages, items = Pages(), [{"n": i} for i in range(5)]
    seen, (page, rev, more) = [], pages.first("me", items, "42", 2)
    while True:
        seen += page
        assert rev == "42"
        if more is None:
            break
        assert more["remainingItemCount"] == 5 - len(seen)
        page, rev, more = pages.next("me", more["continue"], 2)
    assert seen == items


def test_a_continue_token_is_good_once_and_only_for_its_owner():
    pages = Pages()
    _, _, more = pages.first("me", [{}, {}, {}], "7", 1)
    with pytest.raises(StatusError) as other:
        pages.next("someone else", more["continue"], 1)
    assert other.value.code == 410
    assert pages.next("me", more["continue"], 1)[0] == [{}]
    with pytest.raises(StatusError) as again:
        pages.next("me", more["continue"], 1)
    assert again.value.code == 410
    with pytest.raises(StatusError) as garbage:
        pages.next("me", "!!", 1)
    assert garbage.value.code == 400
