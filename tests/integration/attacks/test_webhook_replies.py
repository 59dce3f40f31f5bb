"""A webhook server that answers slowly or without end: the apiserver calls webhooks on a pool of its own, and
before the fix its client gave up only when the socket was idle for timeoutSeconds — a server that sent a
byte every tenth of a second held a worker (and the request it admitted) for as long as it liked, and a
reply was read whole into memory however large. Now the whole exchange has the webhook's timeoutSeconds
(Go's context deadline) and a reply at most MAX_RESPONSE_BYTES."""
from __future__ import annotations

import time

import pytest

from actors.apiserver.admission.webhook import client
from testkit.webhooks import running_webhook

REVIEW = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u"}}


@pytest.fixture(scope="module")
def webhook(tmp_path_factory):
    with running_webhook(tmp_path_factory.mktemp("webhook"), slow_s=30) as server:
        yield server


def test_a_reply_dripped_a_byte_at_a_time_ends_at_the_timeout(webhook):
    started = time.monotonic()
    with pytest.raises(client.CallFailed) as failed:
        client.post(f"{webhook.url}/drip", webhook.ca_bundle, REVIEW, timeout=1)
    assert time.monotonic() - started < 5
    assert str(failed.value) == f'failed to call webhook: Post "{webhook.url}/drip?timeout=1s": context deadline exceeded'
    assert client.post(f"{webhook.url}/allow", webhook.ca_bundle, REVIEW, timeout=1)["response"]["allowed"]


def test_a_reply_larger_than_any_review_is_not_read_whole(webhook):
    with pytest.raises(client.CallFailed) as failed:
        client.post(f"{webhook.url}/huge", webhook.ca_bundle, REVIEW, timeout=10)
    assert str(failed.value).endswith(f"the response is larger than {client.MAX_RESPONSE_BYTES} bytes")
    assert client.post(f"{webhook.url}/allow", webhook.ca_bundle, REVIEW, timeout=1)["response"]["allowed"]
