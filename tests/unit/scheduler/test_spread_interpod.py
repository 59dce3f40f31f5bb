"""PodTopologySpread and InterPodAffinity."""
import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE
from actors.scheduler.plugins.interpod import InterPodAffinity
from actors.scheduler.plugins.spread import PodTopologySpread
from tests.unit.scheduler.kit import ctx, node, pod, scores, table, verdicts

NODES = (node("a1", labels={"zone": "a"}), node("a2", labels={"zone": "a"}), node("b1", labels={"zone": "b"}),
         node("nozone"))
WEB = {"app": "web"}


def _spread(key="zone", skew=1, when="DoNotSchedule"):
    return [{"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when,
             "labelSelector": {"matchLabels": WEB}}]


def test_spread_filter_keeps_skew_within_max():
    t = table(*NODES, pods=((pod("w1", labels=WEB), "a1"), (pod("w2", labels=WEB), "a2"),
                            (pod("other", labels={"app": "db"}), "b1")))
    got = verdicts(PodTopologySpread(), t, pod(labels=WEB, topologySpreadConstraints=_spread()))
    assert got == [UNSCHEDULABLE, UNSCHEDULABLE, 0, UNRESOLVABLE]  # zone a has 2, b has 0; nozone lacks the key


def test_spread_counts_only_same_namespace_and_live_pods():
    gone = pod("w-old", labels=WEB)
    gone["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    t = table(*NODES[:3], pods=((pod("w1", labels=WEB, namespace="other"), "a1"), (gone, "a2")))
    assert verdicts(PodTopologySpread(), t, pod(labels=WEB, topologySpreadConstraints=_spread())) == [0, 0, 0]


def test_spread_score_prefers_emptier_hosts():
    t = table(*NODES[:3], pods=((pod("w1", labels=WEB), "a1"), (pod("w2", labels=WEB), "a1"),
                                (pod("w3", labels=WEB), "a2")))
    got = scores(PodTopologySpread(), t, pod(labels=WEB, topologySpreadConstraints=_spread(
        "kubernetes.io/hostname", 1, "ScheduleAnyway")))
    # raw = cnt * ln(3 + 2): 2 -> 3.2 -> 3, 1 -> 1.6 -> 2, 0 -> 0; normalized 100 * (3 + 0 - raw) / 3
    assert got == [0, 33, 100]


def test_system_default_spreading_uses_the_owning_replicaset():
    rs = {"metadata": {"name": "web-rs"}, "spec": {"selector": {"matchLabels": WEB}}}
    owned = pod(labels=WEB)
    owned["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-rs", "controller": True,
                                             "apiVersion": "apps/v1", "uid": "x"}]
    t = table(*NODES[:3], pods=((pod("w1", labels=WEB), "a1"),))
    plugin = PodTopologySpread()
    c = ctx(t, owned, replicaset=lambda ns, name: rs if name == "web-rs" else None)
    idx = np.arange(3)
    assert plugin.pre_score(c, idx)
    got = [int(x) for x in plugin.normalize(c, plugin.score(c, idx))]
    assert got[0] < got[1] and got[0] < got[2]
    assert not PodTopologySpread().pre_score(ctx(t, pod(labels=WEB)), idx)  # no owner: no defaults


def _anti(key="kubernetes.io/hostname"):
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": WEB}, "topologyKey": key}]}}


def _affine(key="zone"):
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": WEB}, "topologyKey": key}]}}


def test_required_anti_affinity_keeps_replicas_apart():
    t = table(*NODES, pods=((pod("w1", labels=WEB), "a1"),))
    assert verdicts(InterPodAffinity(), t, pod(labels=WEB, affinity=_anti())) == [UNSCHEDULABLE, 0, 0, 0]
    assert verdicts(InterPodAffinity(), t, pod(labels=WEB, affinity=_anti("zone"))) == [UNSCHEDULABLE, UNSCHEDULABLE,
                                                                                         0, 0]


def test_existing_pods_anti_affinity_is_honoured():
    t = table(*NODES, pods=((pod("loner", labels={"app": "db"}, affinity=_anti()), "b1"),))
    assert verdicts(InterPodAffinity(), t, pod(labels=WEB)) == [0, 0, UNSCHEDULABLE, 0]


def test_required_affinity_and_the_first_pod_exception():
    t = table(*NODES, pods=((pod("w1", labels=WEB), "b1"),))
    assert verdicts(InterPodAffinity(), t, pod(affinity=_affine())) == [UNRESOLVABLE, UNRESOLVABLE, 0, UNRESOLVABLE]
    empty = table(*NODES)
    assert verdicts(InterPodAffinity(), empty, pod(labels=WEB, affinity=_affine())) == [0, 0, 0, UNRESOLVABLE]
    assert verdicts(InterPodAffinity(), empty, pod(affinity=_affine())) == [UNRESOLVABLE] * 4


def test_preferred_affinity_scores_by_domain():
    preferred = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": WEB}, "topologyKey": "zone"}}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                              "topologyKey": "kubernetes.io/hostname"}}]}}
    t = table(*NODES, pods=((pod("w1", labels=WEB), "a1"), (pod("db", labels={"app": "db"}), "a2")))
    # a1: +10 (zone a), a2: +10 - 5, b1: 0, nozone: 0  -> min-max over [10, 5, 0, 0]
    assert scores(InterPodAffinity(), t, pod(affinity=preferred)) == [100, 50, 0, 0]
