"""Fetching a pod's ConfigMaps and Secrets: a get each, found / not found / failed, at most every
REFRESH_S unless made stale, ready once every reference was answered."""
from __future__ import annotations

from actors.kubelet.podobjects import REFRESH_S, PodObjects

POD = {"metadata": {"name": "p", "namespace": "prod"},
       "spec": {"containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cfg"}},
                                                         {"secretRef": {"name": "s"}}],
                                "env": [{"name": "X", "valueFrom": {"secretKeyRef": {"name": "gone", "key": "k"}}}]}]}}
REPLIES = {"cfg": {"ok": True, "object": {"data": {"a": "1"}}},
           "s": {"ok": False, "status": {"reason": "Forbidden", "message": 'secrets "s" is forbidden: no'}},
           "gone": {"ok": False, "status": {"reason": "NotFound", "message": 'secrets "gone" not found'}}}


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


def test_every_reference_is_asked_for_and_answered():
    clock, asked, done = Clock(), [], []
    objects = PodObjects(POD, clock)
    objects.refresh(lambda body, reply: asked.append((body, reply)), lambda: done.append(1))
    assert not objects.ready and sorted(b["name"] for b, _ in asked) == ["cfg", "gone", "s"]
    assert {b["namespace"] for b, _ in asked} == {"prod"} and {b["verb"] for b, _ in asked} == {"get"}
    for body, reply in asked:
        reply(REPLIES[body["name"]])
    assert objects.ready and done == [1]
    assert objects.view() == {("ConfigMap", "cfg"): {"data": {"a": "1"}}, ("Secret", "gone"): None,
                              ("Secret", "s"): 'secrets "s" is forbidden: no'}


def test_a_periodic_refresh_waits_its_interval_unless_stale():
    clock, asked = Clock(), []
    objects = PodObjects(POD, clock)
    call = lambda body, reply: asked.append(reply)  # noqa: E731
    objects.refresh(call, lambda: None, periodic=True)
    for reply in list(asked):
        reply({"ok": True, "object": {}})
    objects.refresh(call, lambda: None, periodic=True)
    assert len(asked) == 3
    clock.now += REFRESH_S
    objects.refresh(call, lambda: None, periodic=True)
    assert len(asked) == 6
    objects.refresh(call, lambda: None, periodic=True)  # answers still out: not asked twice
    assert len(asked) == 6
    for reply in asked[3:]:
        reply({"ok": True, "object": {}})
    objects.stale()
    objects.refresh(call, lambda: None, periodic=True)
    assert len(asked) == 9


def test_without_projecting_volumes_it_fetches_again_only_when_stale():
    clock, asked = Clock(), []
    objects = PodObjects(POD, clock)
    call = lambda body, reply: asked.append(reply)  # noqa: E731
    objects.refresh(call, lambda: None)
    for reply in list(asked):
        reply({"ok": True, "object": {}})
    clock.now += 100 * REFRESH_S
    objects.refresh(call, lambda: None)
    assert len(asked) == 3
    objects.stale()
    objects.refresh(call, lambda: None)
    assert len(asked) == 6


def test_a_pod_that_references_nothing_is_ready_at_once():
    objects = PodObjects({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}, Clock())
    objects.refresh(lambda body, reply: (_ for _ in ()).throw(AssertionError("asked")), lambda: None)
    assert objects.ready and objects.view() == {}
