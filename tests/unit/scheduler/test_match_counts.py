"""The NodeTable's per-node counts for spreading and inter-pod affinity stay what a scan would find."""
import random

import numpy as np

from actors.scheduler.nodes import IDLE_CHANGES, MATCH_KEYS, NodeTable
from actors.scheduler.plugins.podmatch import ANTI, SOFT, Spread, TermMatch, term_groups
from actors.scheduler.podinfo import pod_info
from api.selectors import from_label_selector
from tests.unit.scheduler.kit import node, pod, table

WEB = Spread("default", from_label_selector({"matchLabels": {"app": "web"}}))


def _scan(t: NodeTable, match) -> list[int]:
    return [sum(1 for p in t.pods_on(i) if match(p)) for i in range(len(t))]


def _anti(app="web", key="kubernetes.io/hostname"):
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}]}}


def test_counts_follow_adds_removes_relabels_and_node_churn():
    rng = random.Random(3)
    t = table(*(node(f"n{i}", labels={"zone": f"z{i % 2}"}) for i in range(5)))
    assert list(t.match_counts(WEB)) == [0] * 5  # asked before any pod: kept from now on
    live = {}
    for step in range(300):
        x = rng.random()
        if x < 0.5 or not live:
            p = pod_info(pod(f"p{step}", labels={"app": rng.choice(["web", "db"])}))
            t.add_pod(p, f"n{rng.randrange(7)}")  # n5 and n6 are not known yet: the pod waits
            live[p.uid] = p
        elif x < 0.7:
            t.remove_pod(live.pop(rng.choice(sorted(live))).uid)
        elif x < 0.85:  # a new revision with other labels, on the same node
            uid = rng.choice(sorted(live))
            old = live[uid]
            relabelled = {**old.pod["metadata"], "labels": {"app": rng.choice(["web", "db"])}}
            new = pod_info({**old.pod, "metadata": relabelled})
            t.add_pod(new, t.pod_node[uid])
            live[uid] = new
        elif x < 0.93:
            t.remove_node(f"n{rng.randrange(7)}")
        else:
            t.upsert_node(node(f"n{rng.randrange(7)}", labels={"zone": "z9"}))  # may grow the table
        assert list(t.match_counts(WEB)) == _scan(t, WEB)


def test_a_deleting_pod_is_not_counted_by_spreading():
    gone = pod("old", labels={"app": "web"})
    gone["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    t = table(node("a"), pods=((gone, "a"), (pod("new", labels={"app": "web"}), "a")))
    assert list(t.match_counts(WEB)) == [1]


def test_only_the_latest_selectors_are_kept():
    t = table(node("a"), pods=((pod("w", labels={"app": "web"}), "a"),))
    for n in range(MATCH_KEYS + 1):
        t.match_counts(Spread(f"ns{n}", WEB.selector))
    assert len(t._matches) == MATCH_KEYS and WEB not in t._matches
    assert list(t.match_counts(WEB)) == [1]  # counted afresh


def test_a_selector_nobody_asks_for_stops_being_counted():
    t = table(node("a"))
    t.match_counts(WEB)
    for n in range(IDLE_CHANGES + 1):
        t.add_pod(pod_info(pod(f"p{n}", labels={"app": "web"})), "a")
    assert WEB not in t._matches
    assert list(t.match_counts(WEB)) == [IDLE_CHANGES + 1]  # counted afresh


def test_domain_sums_skip_nodes_without_the_label():
    t = table(node("a1", labels={"zone": "a"}), node("b1", labels={"zone": "b"}), node("a2", labels={"zone": "a"}),
              node("bare"))
    codes, values = t.label_codes("zone")
    assert list(codes) == [0, 1, 0, -1] and values == ["a", "b"]
    assert list(t.domain_sums("zone", np.array([1, 2, 3, 4]))) == [4, 2]
    assert list(t.domain_sums("zone", np.array([1, 2, 3, 4]), np.array([0, 1, 3]))) == [1, 2]
    assert list(t.domains_of("zone", np.array([1, 3]))) == [False, True]


def test_term_counts_group_equal_terms_and_forget_the_last():
    first = pod("w1", labels={"app": "web"}, affinity=_anti())
    second = pod("w2", labels={"app": "web"}, affinity=_anti())
    t = table(node("a"), node("b"), pods=((first, "a"), (second, "b")))
    group = term_groups(pod_info(first))[0]
    assert group[:2] == (ANTI, "kubernetes.io/hostname") and group[2] == TermMatch(
        frozenset({"default"}), from_label_selector({"matchLabels": {"app": "web"}}))
    assert list(t.term_counts) == [group] and list(t.term_counts[group][:2]) == [1, 1]
    t.remove_pod(first["metadata"]["uid"])
    t.remove_node("b")  # w2 waits for b: nothing counts the term any more
    assert t.term_counts == {}
    t.upsert_node(node("b"))
    assert list(t.term_counts[group][:2]) == [0, 1]


def test_preferred_terms_carry_their_signed_weight():
    p = pod_info(pod(affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 7, "podAffinityTerm": {"labelSelector": {}, "topologyKey": "zone", "namespaceSelector": {}}}]}}))
    assert term_groups(p) == [(SOFT, "zone", TermMatch(None, from_label_selector({})), -7)]


def test_a_counted_pod_whose_term_does_not_parse_is_counted_and_its_term_selects_nothing():
    odd = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname",
         "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}}]}}
    t = table(node("n1"))
    info = pod_info(pod("odd", labels={"app": "web"}, affinity=odd))
    t.add_pod(info, "n1")
    assert int(t.req["pods"][0]) == 1
    [(kind, key, match, _weight)] = t.term_counts
    assert (kind, key) == (ANTI, "kubernetes.io/hostname") and not match(info)
