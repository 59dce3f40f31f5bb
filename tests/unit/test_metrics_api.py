"""metrics.k8s.io's pure part (api/metrics.py): CPU as Δcumulative/Δt of the last two points with `window`
= Δt, a restarted counter starting over, a pod served only when all its containers have two points, memory
in BinarySI, the selectors; and the simulated runtime's usage integrated from the pod's annotations."""
from __future__ import annotations

from actors.kubelet.runtimes.simulated import CPU, MEMORY, SimulatedRuntime
from api import metrics
from api.metrics import Point, Series


def series(*points: tuple[float, int, int]) -> Series:
    s = Series()
    for p in points:
        s.add(Point(*p))
    return s


def test_rate_of_the_last_two_points():
    s = series((0.0, 0, 10), (10.0, 5_000_000_000, 20), (20.0, 7_000_000_000, 4096))
    assert s.rate() == (200_000_000, 4096, 20.0, 10.0)
    node = metrics.node_metrics("n1", s, {})
    assert (node["usage"], node["window"]) == ({"cpu": "200000000n", "memory": "4Ki"}, "10s")


def test_a_restarted_counter_needs_two_new_points():
    s = series((0.0, 9_000, 1), (1.0, 10_000, 1), (2.0, 10, 1))
    assert s.rate() is None
    s.add(Point(3.0, 1_000_000_010, 1))
    assert s.rate()[0] == 1_000_000_000


def test_a_pod_is_served_only_when_every_container_has_two_points():
    ready, fresh = series((0.0, 0, 1024), (1.0, 100, 1024)), series((1.0, 0, 1024))
    assert metrics.pod_metrics("default", "p", {"a": ready, "b": fresh}, {}) is None
    pod = metrics.pod_metrics("default", "p", {"a": ready}, {"app": "web"})
    assert pod["containers"] == [{"name": "a", "usage": {"cpu": "100n", "memory": "1Ki"}}]
    assert metrics.selected([pod], {"labelSelector": "app=web"}) == [pod]
    assert metrics.selected([pod], {"labelSelector": "app=db"}) == []


def test_simulated_usage_follows_the_annotations():
    now = [100.0]
    runtime = SimulatedRuntime(lambda: now[0])
    pod = {"metadata": {"uid": "u", "annotations": {CPU: "250m", MEMORY: "64Mi"}},
           "spec": {"containers": [{"name": "c"}]}}
    cid = runtime.start(pod, pod["spec"]["containers"][0], 0, {})
    assert runtime.usage(cid, pod, 100.0) == (0, 64 << 20)
    assert runtime.usage(cid, pod, 104.0) == (1_000_000_000, 64 << 20)  # 0.25 cores × 4 s
    pod["metadata"]["annotations"][CPU] = "1"
    assert runtime.usage(cid, pod, 105.0)[0] == 2_000_000_000
    runtime.stop(cid, "TERM")
    assert runtime.usage(cid, pod, 106.0) is None
