"""Malformed requests of this session's verbs and kinds — deletecollection, evict, token, TokenReview,
the resource metrics, server-side apply — sent straight to `{c}.api` by a tenant (bob, admin in
`default`), as anyone on the bus can: wrong types where options are read, lists for objects, huge
values. Each is answered (a 4xx, never a 500 or silence), and the apiserver serves on."""
from __future__ import annotations

import msgpack
import pytest

from runtime.client import Client
from testkit.people import as_person
from testkit.waiting import wait_until
from tests.helpers import raw_call
from tests.tenancy import two_tenants

HUGE = 1 << 62


def _req(verb: str, kind: str, name: str | None = None, obj=None, **options) -> dict:
    return {"verb": verb, "kind": kind, "namespace": "default", "name": name, "object": obj,
            "resourceVersion": None, "options": options}


MALFORMED = [
    _req("deletecollection", "Pod", labelSelector=["a"]),
    _req("deletecollection", "Pod", fieldSelector={"spec.nodeName": 1}),
    _req("deletecollection", "ConfigMap", dryRun=5),
    _req("deletecollection", "ConfigMap", gracePeriodSeconds="soon"),
    _req("deletecollection", "ConfigMap", propagationPolicy=[1]),
    _req("deletecollection", "ConfigMap", preconditions="x"),
    _req("evict", "Pod", "web", obj=[1, 2]),
    _req("evict", "Pod", "web", obj={"metadata": []}),
    _req("evict", "Pod", "web", dryRun=5),
    _req("evict", "Pod", "web", gracePeriodSeconds=-HUGE),
    _req("token", "ServiceAccount", "default", expirationSeconds="an hour"),
    _req("token", "ServiceAccount", "default", expirationSeconds=HUGE),
    _req("token", "ServiceAccount", "default", expirationSeconds=[3600]),
    _req("token", "ServiceAccount", "default", audiences="api"),
    _req("token", "ServiceAccount", "default", audiences=[{"a": 1}]),
    _req("token", "ServiceAccount", "default", pod=["web"]),
    _req("token", "ServiceAccount", "default", pod={"name": "web"}),
    _req("list", "PodMetrics", labelSelector=5),
    _req("list", "PodMetrics", fieldSelector=[1]),
    _req("get", "PodMetrics", "web", labelSelector={"a": "b"}),
    _req("list", "NodeMetrics"),  # cluster-scoped: bob may not (403), and it must still be an answer
    _req("patch", "ConfigMap", "cm", obj={"data": {"a": "b"}}, patchType="apply", fieldManager=5),
    _req("patch", "ConfigMap", "cm", obj={"data": {"a": "b"}}, patchType="apply", fieldManager="m", force="yes"),
    _req("patch", "ConfigMap", "cm", obj=[{"op": "add"}], patchType="apply", fieldManager="m"),
    _req("patch", "ConfigMap", "cm", obj={"metadata": {"managedFields": "all"}}, patchType="merge"),
    _req("patch", "ConfigMap", "cm", obj={"metadata": {"managedFields": [{"manager": 5, "fieldsV1": []}]}},
         patchType="merge"),
]
_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjF9"
REVIEWS = [  # asked by an administrator (a tenant may not review tokens): the review itself is reached
    _req("create", "TokenReview", obj={"spec": {"token": 5}}),
    _req("create", "TokenReview", obj={"spec": {"token": "a.b.c", "audiences": 7}}),
    _req("create", "TokenReview", obj={"spec": {"token": f"{_JWT}.x", "audiences": [[1]]}}),
    _req("create", "TokenReview", obj={"spec": {"token": "." * 10_000}}),
    _req("create", "TokenReview", obj={"spec": {"token": "%%%.%%%.%%%"}}),
    _req("create", "TokenReview", obj={"spec": []}),
    _req("create", "TokenReview", obj=["spec"]),
]


@pytest.fixture
def bob(cluster, procs, settings):
    two_tenants(cluster, procs)
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"},
                    "data": {"a": "a"}})
    client = Client(as_person(settings, "bob"), name="test bob")
    wait_until(lambda: client.list("Pod", "default").items, 10, what="bob to list default")
    yield client
    client.close()


def test_malformed_requests_of_the_new_verbs_are_answered_and_the_apiserver_serves_on(bob, cluster, settings):
    url = as_person(settings, "bob").amqp_url
    replies = raw_call(url, f"{settings.cluster}.api", "apiserver", [msgpack.packb(r) for r in MALFORMED],
                       timeout=30)
    replies += raw_call(settings.amqp_url, f"{settings.cluster}.api", "apiserver",
                        [msgpack.packb(r) for r in REVIEWS], timeout=30)
    assert len(replies) == len(MALFORMED) + len(REVIEWS), "some requests were never answered"
    codes = {}
    for reply in replies:
        status = reply.get("status") or {}
        codes.setdefault(status.get("code", 200), []).append(status.get("message", "")[:120])
    assert not [c for c in codes if isinstance(c, int) and c >= 500], codes
    assert cluster.get("ConfigMap", "cm", "default")["data"] == {"a": "a"}
    assert [p["metadata"]["name"] for p in bob.list("Pod", "default").items] == ["web"]
